/**
 * The built-in OpenAI voice provider (`type: openai`). When a visitor starts a conversation it
 * asks OpenAI's Realtime API for a client secret (`POST {baseUrl}/v1/realtime/client_secrets`)
 * whose session carries the site's model, voice, prompt and tools, so the widget can connect over
 * WebRTC (`{baseUrl}/v1/realtime/calls`) without ever holding the standard key. The session is
 * fixed here, server-side, rather than by the widget: a visitor cannot swap the prompt or tools.
 *
 * Anything that stops a session being minted (no key, OpenAI refusing or failing, too slow, an
 * answer without a secret) is a VoiceProviderUnavailable whose message says which; the service
 * answers 503 with it, so no message may hold the key.
 *
 * It also embeds texts (`embed`, openai-embeddings.ts) with `text-embedding-3-small` for the
 * meaning search of a site's knowledge, with the same key, base URL, timeout and errors; the
 * service calls it only when the operator turned embeddings on.
 *
 * Requests go through `context.fetch`, the host's SSRF-guarded fetch: the base URL is a setting,
 * and OpenAI's public address passes the guard.
 */
import { definePlugin, PLUGIN_API_VERSION } from "sitevoice";
import {
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  OpenAiProvider,
  type OpenAiProviderConfig,
} from "./openai-provider.ts";

export {
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  DEFAULT_TIMEOUT_MS,
  OpenAiProvider,
  type OpenAiProviderConfig,
} from "./openai-provider.ts";

export const OPENAI_REALTIME_VOICES = [
  "alloy",
  "ash",
  "ballad",
  "coral",
  "echo",
  "sage",
  "shimmer",
  "verse",
  "marin",
  "cedar",
] as const;

export default definePlugin<"voice-provider", OpenAiProviderConfig>({
  kind: "voice-provider",
  name: "provider-openai",
  apiVersion: PLUGIN_API_VERSION,
  type: "openai",
  // The voices of OpenAI's realtime models; it refuses the older text-to-speech voices (fable,
  // onyx, nova) in a realtime session.
  voices: OPENAI_REALTIME_VOICES,
  configSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    additionalProperties: false,
    properties: {
      apiKey: { type: "string", description: "The standard OpenAI API key (OPENAI_API_KEY)." },
      baseUrl: {
        type: "string",
        format: "uri",
        pattern: "^https?://",
        default: DEFAULT_BASE_URL,
        description: "Where OpenAI's API lives (OPENAI_BASE_URL).",
      },
      model: {
        type: "string",
        minLength: 1,
        default: DEFAULT_MODEL,
        description: "The realtime model (OPENAI_REALTIME_MODEL).",
      },
      timeoutMs: {
        type: "integer",
        minimum: 1,
        maximum: 60_000,
        description: "How long OpenAI may take to mint a client secret, in milliseconds.",
      },
    },
  },
  create: (config, context) => new OpenAiProvider(config, context),
});
