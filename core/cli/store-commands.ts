/**
 * The commands on the store alone, which work while the plugin configuration is broken: migrate,
 * keys, secrets rotate and workspace (their code: migrate.ts, keys.ts, secrets.ts, workspace.ts).
 */
import { PLANS } from "../plans.ts";
import { siteLimitText } from "../sites/plan-limits.ts";
import { defineCommand } from "./command-spec.ts";

const workspace = {
  type: "string",
  value: "ID",
  description: "the workspace (default: the default workspace)",
} as const;

export const migrateCommand = defineCommand({
  name: "migrate",
  summary: "bring the database schema up to date",
  description:
    "Brings the schema of the database of DATABASE_URL up to date (the service also does\n" +
    "this when it starts), and prints `database is up to date`.",
  options: {},
  examples: ["DATABASE_URL=postgres://sitevoice@db/sitevoice sitevoice migrate"],
  load: async () => (await import("./migrate.ts")).migrate,
});

export const keysCreateCommand = defineCommand({
  name: "keys create",
  summary: "create an API key and print its value once",
  description:
    "Creates an API key in the workspace and prints its id and its value, once: only a hash\n" +
    "is kept. --site-ids limits the key to those sites, which must be the workspace's.",
  options: {
    name: { type: "string", value: "N", description: 'its name (default "CLI key")' },
    scopes: {
      type: "string",
      value: "LIST",
      description: "comma-separated scopes, such as sites:read,sites:write (default: every scope)",
    },
    mode: { type: "string", value: "live|test", description: "its mode (default live)" },
    "site-ids": {
      type: "string",
      value: "LIST",
      description: "comma-separated site ids it is limited to (default: every site)",
    },
    workspace,
  },
  examples: [
    "sitevoice keys create --name ci --scopes sites:read,sites:write --site-ids luigis-trattoria",
  ],
  load: async () => (await import("./keys.ts")).keysCreate,
});

export const keysListCommand = defineCommand({
  name: "keys list",
  summary: "list the keys (never their values)",
  description:
    "Lists the workspace's keys, one a line: id, vk_live_••••abcd, name, scopes, the sites it\n" +
    "is limited to (`all sites` when none), and its state. Never a value.",
  options: { workspace },
  examples: ["sitevoice keys list"],
  load: async () => (await import("./keys.ts")).keysList,
});

export const keysRevokeCommand = defineCommand({
  name: "keys revoke",
  args: "<key_id>",
  positionals: { min: 1, max: 1 },
  summary: "revoke a key at once",
  description: "Revokes the key: from now on every request made with it is refused (401).",
  options: { workspace },
  examples: ["sitevoice keys revoke key_01jd5v7k3m9q8r2t4w6y8z0a1b"],
  load: async () => (await import("./keys.ts")).keysRevoke,
});

export const secretsRotateCommand = defineCommand({
  name: "secrets rotate",
  summary: "re-seal every secret under SITEVOICE_MASTER_KEY",
  description:
    "Re-seals every secret of the store under SITEVOICE_MASTER_KEY (sites and their versions,\n" +
    "open widget sessions, sealed event fields, webhook secrets, OAuth tokens, the workspaces'\n" +
    "visitor-ID keys); the old keys in SITEVOICE_OLD_MASTER_KEYS can be dropped afterwards.",
  options: {},
  examples: ["SITEVOICE_MASTER_KEY=<new> SITEVOICE_OLD_MASTER_KEYS=<old> sitevoice secrets rotate"],
  load: async () => (await import("./secrets.ts")).secretsRotate,
});

export const workspaceListCommand = defineCommand({
  name: "workspace list",
  summary: "list the workspaces: id, plan, sites, name",
  description:
    "Lists every workspace of the store, oldest first (the first is the default workspace):\n" +
    "its id, plan, number of sites and name.",
  options: {},
  examples: ["sitevoice workspace list"],
  load: async () => (await import("./workspace.ts")).workspaceList,
});

export const workspacePlanCommand = defineCommand({
  name: "workspace plan",
  args: "<workspace_id> <plan>",
  positionals: { min: 2, max: 2 },
  summary: "change a workspace's plan",
  description:
    "Sets the workspace's plan, which bounds its sites and its monthly voice minutes:\n" +
    `${PLANS.map((plan) => `  ${plan.padEnd(12)}${siteLimitText(plan)}`).join("\n")}\n` +
    "Sites over a smaller plan's limit stay; new ones are refused. SITEVOICE_DEFAULT_PLAN,\n" +
    "when set, sets the default workspace's plan again at every start.",
  options: {},
  examples: ["sitevoice workspace plan ws_default pro"],
  load: async () => (await import("./workspace.ts")).workspacePlan,
});
