/**
 * `sitevoice validate [paths…]`: checks site files by the installation's rules (its plugins and
 * templates), without a store (the work itself is core/sites/yaml/validate-command.ts).
 */
import type { Settings } from "../settings.ts";
import { validateCommand } from "../sites/yaml/validate-command.ts";
import { withPlugins } from "./command-parts.ts";

/** Checks files only: the plugins and their rules, no store. */
export async function validate(settings: Readonly<Settings>, input: { positionals: string[] }) {
  await withPlugins(settings, async ({ rules }) => {
    process.exitCode = await validateCommand(input.positionals, {
      cwd: process.cwd(),
      out: console.log,
      rules,
    });
  });
}
