/**
 * The plugins and site rules a CLI command works with (compose.ts), on the settings of `env`
 * (a default installation when empty), with a silent logger.
 */
import pino from "pino";
import { composePlugins, type InstalledPlugins } from "../../core/compose.ts";
import { loadSettings } from "../../core/settings.ts";

export function installedPlugins(env: Record<string, string> = {}): Promise<InstalledPlugins> {
  return composePlugins(loadSettings(env), pino({ level: "silent" }), "prompt-templates");
}
