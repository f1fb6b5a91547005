/**
 * Which voice-provider plugin mints the widget's sessions, and the config to make it with. The
 * built-in OpenAI provider is configured by environment variables (OPENAI_API_KEY, …) like the
 * rest of the service, so an operator never writes its key into SITEVOICE_PLUGIN_CONFIG; any other
 * provider takes its config from SITEVOICE_PLUGIN_CONFIG under the value of
 * SITEVOICE_VOICE_PROVIDER.
 */
import type { Settings } from "../settings.ts";

/** The `type` of the built-in provider (plugins/provider-openai). */
export const OPENAI_PROVIDER_TYPE = "openai";

export interface VoiceProviderSelection {
  /** The `type` or name to pass to `host.instance("voice-provider", …)`. */
  type: string;
  /** The plugin's config; the host checks it against the plugin's configSchema. */
  config: Record<string, unknown>;
}

export function voiceProviderConfig(
  settings: Pick<Readonly<Settings>, "voiceProvider" | "openai" | "pluginConfig">,
): VoiceProviderSelection {
  const type = settings.voiceProvider;
  if (type === OPENAI_PROVIDER_TYPE) {
    const { apiKey, baseUrl, realtimeModel } = settings.openai;
    // No key is left out rather than empty: the provider then says which variable to set.
    const config: Record<string, unknown> = { baseUrl, model: realtimeModel };
    if (apiKey !== undefined) config.apiKey = apiKey;
    return { type, config };
  }
  const config = settings.pluginConfig[type];
  return {
    type,
    config:
      typeof config === "object" && config !== null && !Array.isArray(config)
        ? (config as Record<string, unknown>)
        : {},
  };
}
