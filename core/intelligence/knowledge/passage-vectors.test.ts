/**
 * The vectors of a site's passages at index time: what each passage's vector is made of, one
 * call of `embed` for the passages that need one, and the vectors of unchanged pages' passages
 * taken from the previous index instead of sent again.
 */
import { expect } from "chai";
import type { Passage } from "./knowledge-types.ts";
import type { Embed } from "./knowledge-embedder.ts";
import { embeddingText, passageVectors } from "./passage-vectors.ts";
import { VectorIndex } from "./vector-index.ts";

const passage = (url: string, n: number, text: string): Passage => ({
  id: `${url}#${n}`,
  url,
  title: "Bakery",
  heading: "Hours > Sundays",
  sectionId: "sundays",
  text,
});

const HOURS = "https://bakery.example/hours";
const DELIVERY = "https://bakery.example/delivery";
const passages = [
  passage(HOURS, 0, "Open on Sundays from 8 to 12."),
  passage(DELIVERY, 0, "We deliver within two days."),
];

/** An embed that records what it was asked, each text's vector along one axis by its length. */
const recording = () => {
  const asked: string[][] = [];
  const embed: Embed = async (texts) => {
    asked.push(texts);
    return texts.map((text) => Float32Array.of(text.length % 7, 1, text.length % 3));
  };
  return { asked, embed };
};

describe("passage vectors", () => {
  it("embeds a passage's title, heading path and text, one a line", () => {
    expect(embeddingText(passages[0]!)).to.equal(
      "Bakery\nHours > Sundays\nOpen on Sundays from 8 to 12.",
    );
  });

  it("embeds every passage in one call and indexes them by id", async () => {
    const { asked, embed } = recording();
    const index = await passageVectors({ passages, embed });
    expect(asked).to.deep.equal([passages.map(embeddingText)]);
    expect(index.size).to.equal(2);
    const length = embeddingText(passages[1]!).length;
    const [top] = index.search(Float32Array.of(length % 7, 1, length % 3), 1);
    expect(top?.id).to.equal(`${DELIVERY}#0`);
  });

  it("takes unchanged passages' vectors from the previous index, embedding only the rest", async () => {
    const first = recording();
    const previous = await passageVectors({ passages, embed: first.embed });
    const changed = [passages[0]!, passage(DELIVERY, 0, "We now deliver on the same day.")];
    const second = recording();
    const index = await passageVectors({
      passages: changed,
      embed: second.embed,
      previous,
      unchanged: (p) => p.url === HOURS,
    });
    expect(second.asked).to.deep.equal([[embeddingText(changed[1]!)]]);
    const query = Float32Array.of(3, 1, 2);
    expect(index.search(query, 2)).to.deep.equal(
      VectorIndex.build(
        changed.map((p) => p.id),
        [previous.vector(`${HOURS}#0`)!, (await second.embed([embeddingText(changed[1]!)]))[0]!],
      ).search(query, 2),
    );
  });

  it("embeds an unchanged passage the previous index lacks", async () => {
    const { asked, embed } = recording();
    await passageVectors({
      passages,
      embed,
      previous: VectorIndex.build([], []),
      unchanged: () => true,
    });
    expect(asked).to.deep.equal([passages.map(embeddingText)]);
  });

  it("asks nothing when every passage is unchanged", async () => {
    const previous = await passageVectors({ passages, embed: recording().embed });
    const { asked, embed } = recording();
    const index = await passageVectors({ passages, embed, previous, unchanged: () => true });
    expect(asked).to.deep.equal([]);
    expect(index.serialize()).to.equal(previous.serialize());
  });

  it("rejects when embed does", async () => {
    const failing: Embed = () => Promise.reject(new Error("OpenAI answered 500"));
    let error: unknown;
    await passageVectors({ passages, embed: failing }).catch((e: unknown) => (error = e));
    expect((error as Error).message).to.equal("OpenAI answered 500");
  });
});

describe("VectorIndex.vector", () => {
  it("gives a stored vector's direction, which builds the same index again", () => {
    const index = VectorIndex.build(
      ["a", "b"],
      [Float32Array.of(0.5, -0.25), Float32Array.of(0, 3)],
    );
    const again = VectorIndex.build(["a", "b"], [index.vector("a")!, index.vector("b")!]);
    expect(again.serialize()).to.equal(index.serialize());
  });

  it("gives undefined for an id it does not hold", () => {
    expect(VectorIndex.build([], []).vector("a")).to.equal(undefined);
  });
});
