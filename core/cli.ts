/**
 * `sitevoice <command>`: reads argv, prints USAGE, and hands each command to its module under
 * core/cli/. Every command reads the same settings as the service; a bad setting prints one line
 * naming it and exits 1, as does any other failure.
 */
import { adapters } from "./cli/adapters.ts";
import { keys } from "./cli/keys.ts";
import { migrate } from "./cli/migrate.ts";
import { secrets } from "./cli/secrets.ts";
import { serve } from "./cli/serve.ts";
import { siteFiles } from "./cli/site-files.ts";
import { validate } from "./cli/validate.ts";
import { widget } from "./cli/widget.ts";
import { isServiceError } from "./errors.ts";
import { loadSettings, SettingsError } from "./settings.ts";

const USAGE = `usage: sitevoice <command>

  serve                         start the HTTP service (npm start)
  validate [paths…]             check site YAML files (default sites/); exit 1 on any problem
  diff [paths…] [--prune]       show, per site, what sync would change, field by field
  sync [paths…] [--dry-run] [--prune]
                                make the sites match the files (create, update; --prune deletes
                                sites no file describes); secrets \${env:…}/\${file:…} resolved here
  pull [folder]                 write the sites into YAML files (default sites/), keeping comments
                                diff, sync and pull act on the local store of the default workspace
                                (or --workspace ID), or with --remote URL on a running service
                                with the API key in SITEVOICE_API_KEY
  migrate                       bring the database schema up to date
  adapters test <site_id> [--workspace ID]
                                check a site's adapter connection and print each collection's
                                fields, types, samples and record count
  keys create --name N --scopes a,b [--mode live|test] [--site-ids s1,s2] [--workspace ID]
                                create an API key and print its value once
  keys list [--workspace ID]    list keys (never their values)
  keys revoke <key_id> [--workspace ID]
  widget info                   the widget's script tag with its integrity hash, sizes and ETag
  widget build [--out FILE]     write the widget bundle (default dist/widget.js); both fail above
                                the 20 KB gzipped budget
  secrets rotate                re-seal every secret under SITEVOICE_MASTER_KEY (old keys in
                                SITEVOICE_OLD_MASTER_KEYS), then the old keys can be dropped
`;

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help") {
    console.log(USAGE);
    return;
  }
  const settings = loadSettings();
  switch (command) {
    case "validate":
      return validate(settings, rest);
    case "diff":
    case "sync":
    case "pull":
      return siteFiles(settings, command, rest);
    case "serve":
      return serve(settings);
    case "migrate":
      return migrate(settings);
    case "keys":
      return keys(settings, rest, USAGE);
    case "adapters":
      return adapters(settings, rest, USAGE);
    case "secrets":
      return secrets(settings, rest, USAGE);
    case "widget":
      return widget(settings, rest, USAGE);
    default:
      throw new Error(`unknown command "${command}"\n${USAGE}`);
  }
}

// Output piped into a reader that stops early (`sitevoice widget info | head`) ends quietly.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof SettingsError) console.error(`sitevoice: ${error.message}`);
  else if (isServiceError(error))
    console.error(
      `sitevoice: ${error.message}${error.details.field ? ` (${String(error.details.field)})` : ""}`,
    );
  else {
    // One plain line; the stack only when asked for, so a refused plugin reads as one message.
    console.error(`sitevoice: ${error instanceof Error ? error.message : String(error)}`);
    if (process.env.LOG_LEVEL === "debug" && error instanceof Error) console.error(error.stack);
  }
  process.exit(1);
});
