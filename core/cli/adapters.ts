/**
 * `sitevoice adapters test <site_id>`: checks a site's adapter connection on the local store and
 * prints what each collection holds (the work itself is core/search/adapters-command.ts).
 */
import { parseArgs } from "node:util";
import { operatorPrincipal } from "../auth/principal.ts";
import { adaptersTestCommand } from "../search/adapters-command.ts";
import type { Settings } from "../settings.ts";
import { withParts } from "./command-parts.ts";
import { workspaceFor } from "./workspace-for.ts";

/** `usage` is the CLI's usage text, shown after a malformed command. */
export async function adapters(settings: Readonly<Settings>, args: string[], usage: string) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { workspace: { type: "string" } },
  });
  const [action, siteId] = positionals;
  if (action !== "test" || siteId === undefined) {
    throw new Error(`usage: sitevoice adapters test <site_id> [--workspace ID]\n${usage}`);
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
