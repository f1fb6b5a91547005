/**
 * The plugins a CLI command works with, and the site rules they make: built-in and named adapter
 * plugins (their configSchemas check adapter configs), prompt-template plugins (their industries)
 * and the configured voice provider (its voices). The same rules the service applies, so
 * `sitevoice validate` and the API judge a site alike.
 */
import pino from "pino";
import { PluginHost } from "./host/plugin-host.ts";
import { loadPromptTemplates } from "./intelligence/prompt.ts";
import { OutboundPolicy } from "./security/outbound-policy.ts";
import { BUILTIN_PLUGINS_DIR } from "./service.ts";
import type { Settings } from "./settings.ts";
import { siteRulesOf, type SiteRules } from "./sites/site-rules.ts";

export async function commandPlugins(
  settings: Readonly<Settings>,
): Promise<{ plugins: PluginHost; rules: SiteRules }> {
  const plugins = new PluginHost({
    logger: pino({ level: "silent" }),
    // Every connection a plugin makes (HTTP and the SQL adapters' TCP) passes this policy.
    outbound: OutboundPolicy.fromSettings(settings),
  });
  await plugins.loadBuiltins(BUILTIN_PLUGINS_DIR);
  await plugins.loadPackages(settings.plugins);
  plugins.start();
  // Only the prompt templates: event sinks and auth plugins have nothing to do in a command.
  await plugins.startGlobal(settings.pluginConfig, ["prompt-template"]);
  const templates = loadPromptTemplates(undefined, plugins.globals("prompt-template"));
  const rules = siteRulesOf(plugins, {
    industries: templates.industries,
    voiceProvider: settings.voiceProvider,
  });
  return { plugins, rules };
}
