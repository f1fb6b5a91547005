import { expect } from "chai";
import { costInCents, DEFAULT_VOICE_PRICES, pricesOf, type ModelUsage } from "./prices.ts";

const none = {
  input_text: 0,
  input_audio: 0,
  input_image: 0,
  cached_text: 0,
  cached_audio: 0,
  cached_image: 0,
  output_text: 0,
  output_audio: 0,
};

describe("voice prices", () => {
  it("prices a dated snapshot as its model, and an unknown model not at all", () => {
    expect(pricesOf(DEFAULT_VOICE_PRICES, "gpt-realtime-2025-08-28")).to.equal(
      DEFAULT_VOICE_PRICES["gpt-realtime"],
    );
    expect(pricesOf(DEFAULT_VOICE_PRICES, "gpt-realtime-mini")).to.equal(
      DEFAULT_VOICE_PRICES["gpt-realtime-mini"],
    );
    expect(pricesOf(DEFAULT_VOICE_PRICES, "gpt-4o-realtime-preview")).to.equal(undefined);
  });

  it("costs a million tokens of each kind at its price, in cents", () => {
    const kinds: Array<[keyof typeof none, number]> = [
      ["input_text", 400],
      ["cached_text", 40],
      ["output_text", 1_600],
      ["input_audio", 3_200],
      ["cached_audio", 40],
      ["output_audio", 6_400],
      ["input_image", 500],
      ["cached_image", 50],
    ];
    for (const [kind, cents] of kinds) {
      const usage: ModelUsage = { model: "gpt-realtime", ...none, [kind]: 1_000_000 };
      expect(costInCents(DEFAULT_VOICE_PRICES, [usage]), kind).to.equal(cents);
    }
  });

  it("sums models, and gives no cost when one of them has no prices", () => {
    const realtime: ModelUsage = { model: "gpt-realtime", ...none, output_audio: 10_000 };
    const mini: ModelUsage = { model: "gpt-realtime-mini", ...none, output_audio: 10_000 };
    expect(costInCents(DEFAULT_VOICE_PRICES, [realtime, mini])).to.equal(64 + 20);
    expect(costInCents(DEFAULT_VOICE_PRICES, [realtime, { ...mini, model: "other" }])).to.equal(
      undefined,
    );
    expect(costInCents(DEFAULT_VOICE_PRICES, [])).to.equal(0);
  });
});
