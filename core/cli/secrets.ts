/**
 * `sitevoice secrets rotate`: re-seals every secret in the store under the current master key,
 * after which the old keys can be dropped.
 */
import type { Settings } from "../settings.ts";
import { rotateSecrets } from "../sites/secret-rotation.ts";
import { withParts } from "./command-parts.ts";

/** `usage` is the CLI's usage text, shown after an unknown secrets command. */
export async function secrets(settings: Readonly<Settings>, args: string[], usage: string) {
  if (args[0] !== "rotate") throw new Error(`unknown secrets command "${args[0] ?? ""}"\n${usage}`);
  return withParts(settings, async ({ store, ring }) => {
    const done = await rotateSecrets(store, ring);
    console.log(
      `re-sealed ${done.sites} sites, ${done.versions} versions, ${done.sessions} open ` +
        `sessions and ${done.events} events under key ${ring.primaryId}`,
    );
  });
}
