/**
 * `sitevoice adapters test <site_id>`: checks a site's adapter connection on the local store and
 * prints what each collection holds (the work itself is core/search/adapters-command.ts).
 */
import { operatorPrincipal } from "../auth/principal.ts";
import { adaptersTestCommand } from "../search/adapters-command.ts";
import type { Settings } from "../settings.ts";
import { withParts } from "./command-parts.ts";
import { workspaceFor } from "./workspace-for.ts";

export async function adaptersTest(
  settings: Readonly<Settings>,
  input: { values: { workspace?: string }; positionals: string[] },
) {
  const siteId = input.positionals[0] as string;
  await withParts(settings, async (parts) => {
    const workspaceId = await workspaceFor(parts, input.values.workspace);
    process.exitCode = await adaptersTestCommand(siteId, {
      sites: parts.sites,
      plugins: parts.plugins,
      principal: operatorPrincipal(workspaceId, "cli"),
      out: console.log,
    });
  });
}
