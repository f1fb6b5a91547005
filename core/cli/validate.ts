/**
 * `sitevoice validate [paths…]`: checks site files by the installation's rules (its plugins and
 * templates), without a store (the work itself is core/sites/yaml/validate-command.ts).
 */
import { composePlugins } from "../compose.ts";
import type { Settings } from "../settings.ts";
import { validateCommand } from "../sites/yaml/validate-command.ts";
import { commandLogger } from "./command-parts.ts";

/** Checks files only: the plugins and their rules, no store. */
export async function validate(settings: Readonly<Settings>, paths: string[]) {
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
