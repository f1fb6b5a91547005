/**
 * `sitevoice diff | sync | pull`: the site files against the local store of a workspace, or with
 * `--remote URL` against a running service: picks the target (options parsed by dispatch.ts); the work
 * itself is in core/sites/sync/.
 */
import { operatorPrincipal } from "../auth/principal.ts";
import type { InstalledPlugins } from "../compose.ts";
import type { Settings } from "../settings.ts";
import { pullCommand } from "../sites/sync/pull-command.ts";
import { localTarget, remoteTarget, type SiteTarget } from "../sites/sync/site-target.ts";
import { diffCommand, syncCommand } from "../sites/sync/sync-command.ts";
import { withParts, withPlugins } from "./command-parts.ts";
import { workspaceFor } from "./workspace-for.ts";

interface SiteFilesInput {
  values: { remote?: string; workspace?: string; prune?: boolean; "dry-run"?: boolean };
  positionals: string[];
}

export const diff = (settings: Readonly<Settings>, input: SiteFilesInput) =>
  siteFiles(settings, "diff", input);
export const sync = (settings: Readonly<Settings>, input: SiteFilesInput) =>
  siteFiles(settings, "sync", input);
export const pull = (settings: Readonly<Settings>, input: SiteFilesInput) =>
  siteFiles(settings, "pull", input);

/** diff, sync and pull: the files against the local store or a remote service. */
async function siteFiles(
  settings: Readonly<Settings>,
  command: "diff" | "sync" | "pull",
  { values, positionals }: SiteFilesInput,
) {
  const prune = values.prune === true;
  const run = async (target: SiteTarget, rules: InstalledPlugins["rules"]) => {
    const options = { cwd: process.cwd(), out: console.log, rules, target, prune };
    switch (command) {
      case "diff":
        return diffCommand(positionals, options);
      case "sync":
        return syncCommand(positionals, { ...options, dryRun: values["dry-run"] === true });
      case "pull":
        return pullCommand(positionals, options);
    }
  };
  const remote = values.remote;
  if (remote !== undefined) {
    if (values.workspace !== undefined)
      throw new Error("--workspace is for the local store; a remote key names its workspace");
    const key = process.env.SITEVOICE_API_KEY;
    if (key === undefined || key === "")
      throw new Error("--remote needs an API key in SITEVOICE_API_KEY (sites:read, sites:write)");
    // The files are checked by this installation's rules; the service applies its own.
    await withPlugins(settings, async ({ rules }) => {
      process.exitCode = await run(remoteTarget(remote, key), rules);
    });
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
