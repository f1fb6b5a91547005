/**
 * What a voice model's tokens cost, in US dollars per million tokens of each kind, and a session's
 * cost in cents from the usage its provider confirmed. SITEVOICE_VOICE_PRICES replaces or adds
 * models; DEFAULT_VOICE_PRICES are OpenAI's published prices for its realtime models.
 */
import { SettingsError } from "../settings-values.ts";

export const PRICE_KINDS = [
  "text_in",
  "cached_text_in",
  "text_out",
  "audio_in",
  "cached_audio_in",
  "audio_out",
  "image_in",
  "cached_image_in",
] as const;
export type PriceKind = (typeof PRICE_KINDS)[number];

/** US dollars per million tokens of each kind. */
export type ModelPrices = Readonly<Record<PriceKind, number>>;
export type VoicePrices = Readonly<Record<string, ModelPrices>>;

/** OpenAI's list prices for its GA realtime models (USD per 1M tokens). */
export const DEFAULT_VOICE_PRICES: VoicePrices = Object.freeze({
  "gpt-realtime": Object.freeze({
    text_in: 4,
    cached_text_in: 0.4,
    text_out: 16,
    audio_in: 32,
    cached_audio_in: 0.4,
    audio_out: 64,
    image_in: 5,
    cached_image_in: 0.5,
  }),
  "gpt-realtime-mini": Object.freeze({
    text_in: 0.6,
    cached_text_in: 0.06,
    text_out: 2.4,
    audio_in: 10,
    cached_audio_in: 0.3,
    audio_out: 20,
    image_in: 0.8,
    cached_image_in: 0.08,
  }),
});

const VARIABLE = "SITEVOICE_VOICE_PRICES";

/**
 * SITEVOICE_VOICE_PRICES: `model:kind=usd,kind=usd,…` entries separated by `;`, each naming all
 * eight kinds (PRICE_KINDS) in US dollars per million tokens, over DEFAULT_VOICE_PRICES.
 */
export function parseVoicePrices(raw: string | undefined): VoicePrices {
  const prices: Record<string, ModelPrices> = { ...DEFAULT_VOICE_PRICES };
  const given = new Set<string>();
  for (const entry of (raw ?? "").split(";").map((part) => part.trim())) {
    if (entry === "") continue;
    const colon = entry.indexOf(":");
    const model = entry.slice(0, colon).trim();
    if (colon < 1 || !/^[A-Za-z0-9._-]{1,100}$/.test(model)) {
      throw new SettingsError(
        VARIABLE,
        `"${entry}" is not model:kind=usd,… (such as gpt-realtime:audio_in=32,…)`,
      );
    }
    if (given.has(model)) throw new SettingsError(VARIABLE, `${model} is given twice`);
    given.add(model);
    const kinds: Partial<Record<PriceKind, number>> = {};
    for (const pair of entry
      .slice(colon + 1)
      .split(",")
      .map((part) => part.trim())) {
      const equals = pair.indexOf("=");
      const kind = (equals < 0 ? pair : pair.slice(0, equals)).trim();
      const value = equals < 0 ? undefined : pair.slice(equals + 1).trim();
      if (!PRICE_KINDS.includes(kind as PriceKind)) {
        throw new SettingsError(
          VARIABLE,
          `${model}: "${kind}" is not one of ${PRICE_KINDS.join(", ")}`,
        );
      }
      const usd = Number(value);
      if (value === undefined || value === "" || !Number.isFinite(usd) || usd < 0 || usd > 10_000) {
        throw new SettingsError(
          VARIABLE,
          `${model}: ${kind} must be US dollars from 0 to 10000 (got "${value}")`,
        );
      }
      kinds[kind as PriceKind] = usd;
    }
    const missing = PRICE_KINDS.filter((kind) => kinds[kind] === undefined);
    if (missing.length > 0)
      throw new SettingsError(VARIABLE, `${model}: ${missing.join(", ")} missing`);
    prices[model] = Object.freeze(kinds as Record<PriceKind, number>);
  }
  return Object.freeze(prices);
}

/**
 * The prices of `model`: its own, or those of the model it is a dated snapshot of
 * (`gpt-realtime-2025-08-28` is priced as `gpt-realtime`); undefined when neither is known.
 */
export function pricesOf(prices: VoicePrices, model: string): ModelPrices | undefined {
  const own = prices[model];
  if (own !== undefined) return own;
  const snapshot = /^(.+?)-\d{4}-\d{2}-\d{2}$/.exec(model);
  return snapshot === null ? undefined : prices[snapshot[1]!];
}

/** Token counts of a session's usage on one model, by kind (call_usage's columns). */
export interface ModelUsage {
  model: string;
  input_text: number;
  input_audio: number;
  input_image: number;
  cached_text: number;
  cached_audio: number;
  cached_image: number;
  output_text: number;
  output_audio: number;
}

/**
 * The cost in cents (to 4 decimals) of `usage`, or undefined when a model used has no prices: a
 * cost that leaves out tokens would be wrong, so none is given.
 */
export function costInCents(prices: VoicePrices, usage: readonly ModelUsage[]): number | undefined {
  let usd = 0;
  for (const row of usage) {
    const price = pricesOf(prices, row.model);
    if (price === undefined) return undefined;
    usd +=
      (row.input_text * price.text_in +
        row.cached_text * price.cached_text_in +
        row.output_text * price.text_out +
        row.input_audio * price.audio_in +
        row.cached_audio * price.cached_audio_in +
        row.output_audio * price.audio_out +
        row.input_image * price.image_in +
        row.cached_image * price.cached_image_in) /
      1_000_000;
  }
  return Math.round(usd * 100 * 10_000) / 10_000;
}
