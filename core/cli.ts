/**
 * `sitevoice serve | migrate | keys create|list|revoke`. Every command reads the same settings as
 * the service; a bad setting prints one line naming it and exits 1.
 */
import { parseArgs } from "node:util";
import pino from "pino";
import { bootstrap } from "./bootstrap.ts";
import { scopes, type Scope } from "./http/principal.ts";
import { isServiceError } from "./http/errors.ts";
import { ApiKeyService } from "./keys/api-key-service.ts";
import { loadSettings, SettingsError, type Settings } from "./settings.ts";
import { PluginHost } from "./host/plugin-host.ts";
import { BUILTIN_PLUGINS_DIR, createLogger, startService } from "./service.ts";
import { validateCommand } from "./sites/yaml/validate-command.ts";
import { rotateSecrets } from "./sites/secret-rotation.ts";
import { resolveMasterKey } from "./security/master-key.ts";
import { keyRing } from "./security/secret-box.ts";
import { migrate, openDatabase } from "./store/database.ts";
import { Store } from "./store/store.ts";
import { validateBody } from "./validation/schema-validator.ts";

const USAGE = `usage: sitevoice <command>

  serve                         start the HTTP service (npm start)
  validate [paths…]             check site YAML files (default sites/); exit 1 on any problem
  migrate                       bring the database schema up to date
  keys create --name N --scopes a,b [--mode live|test] [--site-ids s1,s2] [--workspace ID]
                                create an API key and print its value once
  keys list [--workspace ID]    list keys (never their values)
  keys revoke <key_id> [--workspace ID]
  secrets rotate                re-seal every secret under SITEVOICE_MASTER_KEY (old keys in
                                SITEVOICE_OLD_MASTER_KEYS), then the old keys can be dropped
`;

async function withStore<T>(
  settings: Readonly<Settings>,
  work: (store: Store) => Promise<T>,
): Promise<T> {
  const store = new Store(openDatabase(settings.database));
  try {
    await migrate(store.db);
    return await work(store);
  } finally {
    await store.close();
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
  await withStore(settings, async (store) => {
    const service = new ApiKeyService(store);
    const workspaceId =
      values.workspace ?? (await bootstrap(store, service, settings.defaultPlan)).workspaceId;
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
        if ((await store.workspaces.get(workspaceId)) === undefined)
          throw new Error(`unknown workspace ${workspaceId}`);
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

async function validate(settings: Readonly<Settings>, paths: string[]) {
  // Adapter plugins (built-in and named) take part: their configSchema checks adapter.config.
  const plugins = new PluginHost({ logger: pino({ level: "silent" }) });
  await plugins.loadBuiltins(BUILTIN_PLUGINS_DIR);
  await plugins.loadPackages(settings.plugins);
  process.exitCode = await validateCommand(paths, {
    cwd: process.cwd(),
    out: console.log,
    plugins,
  });
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
    case "serve":
      return serve(settings);
    case "migrate":
      return withStore(settings, async () => console.log("database is up to date"));
    case "keys":
      return keys(settings, rest);
    case "secrets":
      if (rest[0] !== "rotate")
        throw new Error(`unknown secrets command "${rest[0] ?? ""}"\n${USAGE}`);
      return withStore(settings, async (store) => {
        const ring = keyRing(
          resolveMasterKey(settings, createLogger(settings)),
          settings.oldMasterKeys,
        );
        const done = await rotateSecrets(store, ring);
        console.log(
          `re-sealed ${done.sites} sites and ${done.versions} versions under key ${ring.primaryId}`,
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
