/**
 * The workspace a CLI command acts on (`--workspace ID`, else the default one), shared by the
 * commands on the local store: keys, adapters and the site-file commands.
 */
import { bootstrap } from "../bootstrap.ts";
import type { StoreParts } from "../compose.ts";

/** The workspace a CLI command acts on: the one named, or the default one (created if need be). */
export async function workspaceFor(parts: StoreParts, named: string | undefined): Promise<string> {
  if (named !== undefined) {
    if ((await parts.store.workspaces.get(named)) === undefined)
      throw new Error(`unknown workspace ${named}`);
    return named;
  }
  const boot = await bootstrap(parts.store, parts.keys, parts.settings);
  if (boot.firstKey !== undefined) {
    console.log(
      `Created the default workspace. Its first API key, shown once:\n\n  ${boot.firstKey}\n`,
    );
  }
  return boot.workspaceId;
}
