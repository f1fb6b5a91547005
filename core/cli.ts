/**
 * `sitevoice serve | migrate | keys create|list|revoke`. Every command reads the same settings as
 * the service; a bad setting prints one line naming it and exits 1.
 */
import { parseArgs } from "node:util";
import type { Logger } from "pino";
import { bootstrap } from "./bootstrap.ts";
import { operatorPrincipal, scopes, type Scope } from "./auth/principal.ts";
import { composeParts, composePlugins, createLogger, type ServiceParts } from "./compose.ts";
import { isServiceError } from "./errors.ts";
import { loadSettings, SettingsError, type Settings } from "./settings.ts";
import { startService } from "./service.ts";
import { validateCommand } from "./sites/yaml/validate-command.ts";
import { adaptersTestCommand } from "./search/adapters-command.ts";
import { pullCommand } from "./sites/sync/pull-command.ts";
import { localTarget, remoteTarget, type SiteTarget } from "./sites/sync/site-target.ts";
import { diffCommand, syncCommand } from "./sites/sync/sync-command.ts";
import { rotateSecrets } from "./sites/secret-rotation.ts";
import { validateBody } from "./validation/schema-validator.ts";

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
  secrets rotate                re-seal every secret under SITEVOICE_MASTER_KEY (old keys in
                                SITEVOICE_OLD_MASTER_KEYS), then the old keys can be dropped
`;

/**
 * A command's logger: the settings' level, but never chattier than warnings, so a command's own
 * lines are not buried in JSON (a warning, such as a generated master key, still shows).
 */
function commandLogger(settings: Readonly<Settings>): Logger {
  const quiet = ["info", "debug", "trace"].includes(settings.logLevel);
  return createLogger(quiet ? { ...settings, logLevel: "warn" } : settings);
}

/** Runs `work` on the service's parts (compose.ts), closed again afterwards. */
async function withParts<T>(
  settings: Readonly<Settings>,
  work: (parts: ServiceParts) => Promise<T>,
): Promise<T> {
  const parts = await composeParts(settings, commandLogger(settings));
  try {
    return await work(parts);
  } finally {
    await parts.close();
  }
}

async function serve(settings: Readonly<Settings>) {
  const logger = createLogger(settings);
  const service = await startService(settings, logger);
  if (service.boot.firstKey !== undefined) {
    console.log(
      `\nFirst API key (all scopes, test mode), shown once — keep it:\n\n  ${service.boot.firstKey}\n\n` +
        `Try: curl -H "Authorization: Bearer ${service.boot.firstKey}" http://localhost:${service.port}/v1/sites\n`,
    );
  }
  logger.info(
    { port: service.port, database: settings.database.client },
    `Sitevoice listening on ${settings.publicBaseUrl}`,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    service.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

/** The workspace a CLI command acts on: the one named, or the default one (created if need be). */
async function workspaceFor(parts: ServiceParts, named: string | undefined): Promise<string> {
  if (named !== undefined) {
    if ((await parts.store.workspaces.get(named)) === undefined)
      throw new Error(`unknown workspace ${named}`);
    return named;
  }
  const boot = await bootstrap(parts.store, parts.keys, parts.settings.defaultPlan);
  if (boot.firstKey !== undefined) {
    console.log(
      `Created the default workspace. Its first API key, shown once:\n\n  ${boot.firstKey}\n`,
    );
  }
  return boot.workspaceId;
}

/** diff, sync and pull: the files against the local store or a remote service. */
async function siteFiles(
  settings: Readonly<Settings>,
  command: "diff" | "sync" | "pull",
  args: string[],
) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      remote: { type: "string" },
      workspace: { type: "string" },
      prune: { type: "boolean", default: false },
      "dry-run": { type: "boolean", default: false },
    },
  });
  if (command !== "sync" && values["dry-run"]) throw new Error(`${command} has no --dry-run`);
  if (command === "pull" && values.prune) throw new Error("pull has no --prune");
  const run = async (target: SiteTarget, rules: ServiceParts["rules"]) => {
    const options = { cwd: process.cwd(), out: console.log, rules, target, prune: values.prune };
    switch (command) {
      case "diff":
        return diffCommand(positionals, options);
      case "sync":
        return syncCommand(positionals, { ...options, dryRun: values["dry-run"] });
      case "pull":
        return pullCommand(positionals, options);
    }
  };
  if (values.remote !== undefined) {
    if (values.workspace !== undefined)
      throw new Error("--workspace is for the local store; a remote key names its workspace");
    const key = process.env.SITEVOICE_API_KEY;
    if (key === undefined || key === "")
      throw new Error("--remote needs an API key in SITEVOICE_API_KEY (sites:read, sites:write)");
    // The files are checked by this installation's rules; the service applies its own.
    const { plugins, rules } = await composePlugins(
      settings,
      commandLogger(settings),
      "prompt-templates",
    );
    try {
      process.exitCode = await run(remoteTarget(values.remote, key), rules);
    } finally {
      await plugins.close();
    }
    return;
  }
  // On the local store, as the service does: changes are announced to running instances, and
  // deletes are `site.deleted` events.
  await withParts(settings, async (parts) => {
    const workspaceId = await workspaceFor(parts, values.workspace);
    const target = localTarget(parts.sites, operatorPrincipal(workspaceId, "cli"));
    process.exitCode = await run(target, parts.rules);
  });
}

async function adapters(settings: Readonly<Settings>, args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { workspace: { type: "string" } },
  });
  const [action, siteId] = positionals;
  if (action !== "test" || siteId === undefined) {
    throw new Error(`usage: sitevoice adapters test <site_id> [--workspace ID]\n${USAGE}`);
  }
  await withParts(settings, async (parts) => {
    const workspaceId = await workspaceFor(parts, values.workspace);
    process.exitCode = await adaptersTestCommand(siteId, {
      sites: parts.sites,
      plugins: parts.plugins,
      principal: operatorPrincipal(workspaceId, "cli"),
      out: console.log,
    });
  });
}

async function keys(settings: Readonly<Settings>, args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      scopes: { type: "string" },
      mode: { type: "string", default: "live" },
      "site-ids": { type: "string" },
      workspace: { type: "string" },
    },
  });
  const [action, id] = positionals;
  await withParts(settings, async (parts) => {
    const service = parts.keys;
    const workspaceId = await workspaceFor(parts, values.workspace);
    switch (action) {
      case "create": {
        const input = validateBody<{
          name: string;
          scopes: Scope[];
          mode: "live" | "test";
          site_ids?: string[];
        }>("api-key-create", {
          name: values.name ?? "CLI key",
          scopes: (values.scopes ?? scopes.join(",")).split(",").map((s) => s.trim()),
          mode: values.mode,
          ...(values["site-ids"] === undefined
            ? {}
            : { site_ids: values["site-ids"].split(",").map((s) => s.trim()) }),
        });
        const key = await service.create(workspaceId, input);
        console.log(
          `${key.id}  ${key.scopes.join(",")}  (${key.mode})\n\n  ${key.value}\n\nThis is the only time the value is shown.`,
        );
        return;
      }
      case "list":
        for (const key of await service.list(workspaceId)) {
          const state = key.revoked_at === undefined ? "active" : `revoked ${key.revoked_at}`;
          console.log(`${key.id}  ${key.display}  ${key.name}  ${key.scopes.join(",")}  ${state}`);
        }
        return;
      case "revoke":
        if (id === undefined) throw new Error("keys revoke needs a key id");
        await service.revoke(workspaceId, id);
        console.log(`revoked ${id}`);
        return;
      default:
        throw new Error(`unknown keys command "${action ?? ""}"\n${USAGE}`);
    }
  });
}

/** Checks files only: the plugins and their rules, no store. */
async function validate(settings: Readonly<Settings>, paths: string[]) {
  const { plugins, rules } = await composePlugins(
    settings,
    commandLogger(settings),
    "prompt-templates",
  );
  try {
    process.exitCode = await validateCommand(paths, {
      cwd: process.cwd(),
      out: console.log,
      rules,
    });
  } finally {
    await plugins.close();
  }
}

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
      return withParts(settings, async () => console.log("database is up to date"));
    case "keys":
      return keys(settings, rest);
    case "adapters":
      return adapters(settings, rest);
    case "secrets":
      if (rest[0] !== "rotate")
        throw new Error(`unknown secrets command "${rest[0] ?? ""}"\n${USAGE}`);
      return withParts(settings, async ({ store, ring }) => {
        const done = await rotateSecrets(store, ring);
        console.log(
          `re-sealed ${done.sites} sites, ${done.versions} versions, ${done.sessions} open ` +
            `sessions and ${done.events} events under key ${ring.primaryId}`,
        );
      });
    default:
      throw new Error(`unknown command "${command}"\n${USAGE}`);
  }
}

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
