/**
 * Whether voice calls can be had at all with the configured voice provider, before any visitor
 * asks: the provider must be installed, its instance made from its config, and the instance must
 * not report itself unavailable (the built-in OpenAI provider without OPENAI_API_KEY). The
 * service warns at start when not, and the dashboard shows it; a session asked for meanwhile is
 * refused with the same words (token-service.ts).
 */
import type { PluginHost } from "../host/plugin-host.ts";
import type { Settings } from "../settings.ts";
import { messageOf } from "../util/message-of.ts";
import { voiceProviderConfig } from "../widget/voice-provider-config.ts";

export interface VoiceAvailabilityParts {
  plugins: PluginHost;
  settings: Pick<Readonly<Settings>, "voiceProvider" | "openai" | "pluginConfig">;
}

/** Why no voice call can be made now, in words for the operator; undefined when one may. */
export async function voiceUnavailable(parts: VoiceAvailabilityParts): Promise<string | undefined> {
  const { type, config } = voiceProviderConfig(parts.settings);
  if (parts.plugins.find("voice-provider", type) === undefined) {
    return `no voice-provider plugin "${type}" is installed`;
  }
  try {
    const provider = await parts.plugins.instance("voice-provider", type, config, "global");
    // Through the host's guard, which turns a throw into a rejection: awaited either way.
    return (await provider.unavailable?.()) ?? undefined;
  } catch (error) {
    return `the voice provider is not configured: ${messageOf(error)}`;
  }
}

/** The sentence the start-up warning and the dashboard's banner begin with. */
export const voiceUnavailableNotice = (reason: string) =>
  `Voice calls are not available: ${reason}`;
