/** Every command of `sitevoice`, in the order `sitevoice --help` lists them, and the groups. */
import type { CommandTable } from "./dispatch.ts";
import {
  adaptersTestCommand,
  serveCommand,
  widgetBuildCommand,
  widgetInfoCommand,
} from "./service-commands.ts";
import { knowledgeSearchCommand, knowledgeStatsCommand } from "./knowledge-commands.ts";
import { diffCommand, pullCommand, syncCommand, validateCommand } from "./site-file-commands.ts";
import {
  keysCreateCommand,
  keysListCommand,
  keysRevokeCommand,
  migrateCommand,
  secretsRotateCommand,
  workspaceListCommand,
  workspacePlanCommand,
} from "./store-commands.ts";

export const commandTable: CommandTable = {
  commands: [
    serveCommand,
    validateCommand,
    diffCommand,
    syncCommand,
    pullCommand,
    migrateCommand,
    adaptersTestCommand,
    knowledgeSearchCommand,
    knowledgeStatsCommand,
    keysCreateCommand,
    keysListCommand,
    keysRevokeCommand,
    widgetInfoCommand,
    widgetBuildCommand,
    secretsRotateCommand,
    workspaceListCommand,
    workspacePlanCommand,
  ],
  groups: {
    adapters: "Checks of a site's data adapter, on the local store.",
    knowledge: "What a site's pages say, as its agent searches them, on the local store.",
    keys: "The API keys of a workspace, on the local store.",
    widget: "The widget bundle the service serves at /widget.js.",
    secrets: "The secrets sealed in the store under the master key.",
    workspace: "The workspaces of the store and their plans.",
  },
};
