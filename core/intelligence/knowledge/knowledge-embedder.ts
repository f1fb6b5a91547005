/**
 * The `embed` a site's knowledge uses for meaning search: that of the voice-provider plugin the
 * operator named in SITEVOICE_EMBEDDINGS (the built-in `openai` with OPENAI_API_KEY and
 * OPENAI_BASE_URL, another with its SITEVOICE_PLUGIN_CONFIG), or none. Without the setting there
 * is none, so the knowledge neither builds vectors nor sends a passage or a question anywhere.
 */
import type { PluginHost } from "../../host/plugin-host.ts";
import type { Settings } from "../../settings.ts";
import { voiceProviderConfig } from "../../widget/voice-provider-config.ts";

/**
 * Vectors of `texts`, one per text in order, Float32Arrays of one length; rejects on any
 * failure, and soon after `signal` aborts.
 */
export type Embed = (texts: string[], signal?: AbortSignal) => Promise<Float32Array[]>;

export interface KnowledgeEmbedderParts {
  plugins: Pick<PluginHost, "instance">;
  settings: Pick<Readonly<Settings>, "embeddings" | "voiceProvider" | "openai" | "pluginConfig">;
}

/** The `embed` in use, with the provider whose vectors it makes (stored beside them). */
export interface KnowledgeEmbedder {
  /** Its type as SITEVOICE_EMBEDDINGS names it: vectors stored by another are made again. */
  provider: string;
  embed: Embed;
}

/**
 * The configured provider's `embed`, its answers checked (count, type, one length), or
 * undefined when SITEVOICE_EMBEDDINGS is off. The provider's instance is made on first use, so a
 * provider missing or unable to embed shows as a rejection there, which a search survives.
 */
export function knowledgeEmbedder(parts: KnowledgeEmbedderParts): KnowledgeEmbedder | undefined {
  const type = parts.settings.embeddings;
  if (type === undefined) return undefined;
  // One config object for every call: the host then finds its instance without hashing it.
  const { config } = voiceProviderConfig({ ...parts.settings, voiceProvider: type });
  const name = `the voice provider ${JSON.stringify(type)}`;
  const embed: Embed = async (texts, signal) => {
    if (texts.length === 0) return [];
    const provider = await parts.plugins.instance("voice-provider", type, config, "global");
    if (typeof provider.embed !== "function") {
      throw new Error(`${name} (SITEVOICE_EMBEDDINGS) cannot embed texts`);
    }
    const vectors: unknown = await provider.embed(texts, signal);
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      const count = Array.isArray(vectors) ? vectors.length : "no";
      throw new Error(`${name} answered ${count} vectors for ${texts.length} texts`);
    }
    const length = (vectors[0] as { length?: unknown } | undefined)?.length;
    if (!vectors.every((v) => v instanceof Float32Array && v.length === length && v.length > 0)) {
      throw new Error(`${name} answered vectors that are not Float32Arrays of one length`);
    }
    return vectors as Float32Array[];
  };
  return { provider: type, embed };
}
