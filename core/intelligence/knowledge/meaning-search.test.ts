/**
 * The vector half of a knowledge search: the question's vector ranked against the site's, or
 * undefined (keyword search alone) when there is nothing to rank, the provider is slow or fails;
 * what it logs holds the question's length, never its words.
 */
import { Writable } from "node:stream";
import { expect } from "chai";
import { pino } from "pino";
import type { Embed } from "./knowledge-embedder.ts";
import { meaningSearch, type MeaningSearchRequest } from "./meaning-search.ts";
import { VectorIndex } from "./vector-index.ts";

const QUESTION = "Do you deliver to Lyon on Sundays?";

/** Passages along three directions; the question points at "delivery". */
const index = VectorIndex.build(
  ["hours", "delivery", "prices"],
  [Float32Array.of(1, 0, 0), Float32Array.of(0, 1, 0.2), Float32Array.of(0.1, 0.2, 1)],
);
const toDelivery: Embed = async (texts) => texts.map(() => Float32Array.of(0.1, 1, 0));

describe("meaning search", () => {
  let lines: Record<string, unknown>[];
  let request: (overrides: Partial<MeaningSearchRequest>) => MeaningSearchRequest;

  beforeEach(() => {
    lines = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString("utf8")) as Record<string, unknown>);
        done();
      },
    });
    request = (overrides) => ({
      query: QUESTION,
      limit: 3,
      index,
      embed: toDelivery,
      logger: pino(sink),
      ...overrides,
    });
  });

  it("ranks the site's passages by the question's vector", async () => {
    expect(await meaningSearch(request({}))).to.deep.equal(["delivery", "prices", "hours"]);
  });

  it("ranks at most `limit` passages", async () => {
    expect(await meaningSearch(request({ limit: 1 }))).to.deep.equal(["delivery"]);
  });

  it("embeds the question alone", async () => {
    const asked: string[][] = [];
    await meaningSearch(
      request({
        embed: async (texts) => {
          asked.push(texts);
          return toDelivery(texts);
        },
      }),
    );
    expect(asked).to.deep.equal([[QUESTION]]);
  });

  it("answers undefined without embeddings (keyword search alone)", async () => {
    expect(await meaningSearch(request({ embed: undefined }))).to.equal(undefined);
  });

  it("answers undefined, without embedding, when the site has no vectors", async () => {
    let called = false;
    const embed: Embed = async (texts) => {
      called = true;
      return toDelivery(texts);
    };
    expect(await meaningSearch(request({ index: undefined, embed }))).to.equal(undefined);
    expect(await meaningSearch(request({ index: VectorIndex.build([], []), embed }))).to.equal(
      undefined,
    );
    expect(called).to.equal(false);
  });

  it("answers undefined when the provider is slower than the timeout, and aborts it", async () => {
    let signalled: AbortSignal | undefined;
    const slow: Embed = (_texts, signal) => {
      signalled = signal;
      return new Promise(() => undefined);
    };
    expect(await meaningSearch(request({ embed: slow, timeoutMs: 20 }))).to.equal(undefined);
    expect(signalled?.aborted).to.equal(true);
  });

  it("logs a timeout with the question's length, not its words", async () => {
    const slow: Embed = () => new Promise(() => undefined);
    await meaningSearch(request({ embed: slow, timeoutMs: 20 }));
    expect(lines.map((line) => [line.msg, line.query_chars, line.timeout_ms])).to.deep.equal([
      ["meaning search timed out: keyword ranking alone", QUESTION.length, 20],
    ]);
    expect(JSON.stringify(lines)).to.not.include("Lyon");
  });

  it("answers undefined when the provider fails", async () => {
    const failing: Embed = () => Promise.reject(new Error("OpenAI answered 429 Too Many Requests"));
    expect(await meaningSearch(request({ embed: failing }))).to.equal(undefined);
  });

  it("logs a failure with why and the question's length, not its words", async () => {
    const failing: Embed = () => Promise.reject(new Error("OpenAI answered 429 Too Many Requests"));
    await meaningSearch(request({ embed: failing }));
    expect(lines.map((line) => [line.msg, line.err, line.query_chars])).to.deep.equal([
      [
        "meaning search failed: keyword ranking alone",
        "OpenAI answered 429 Too Many Requests",
        QUESTION.length,
      ],
    ]);
    expect(JSON.stringify(lines)).to.not.include("Lyon");
  });

  it("answers undefined when the vector is not of the index's model (another length)", async () => {
    const other: Embed = async (texts) => texts.map(() => Float32Array.of(1, 0));
    expect(await meaningSearch(request({ embed: other }))).to.equal(undefined);
    expect(lines[0]?.err).to.equal("the query has 2 numbers, the index 3");
  });

  it("answers undefined, without embedding, when the caller has already gone", async () => {
    let called = false;
    const embed: Embed = async (texts) => {
      called = true;
      return toDelivery(texts);
    };
    const signal = AbortSignal.abort();
    expect(await meaningSearch(request({ embed, signal }))).to.equal(undefined);
    expect(called).to.equal(false);
  });

  it("stops waiting when the caller goes, and aborts the provider", async () => {
    const controller = new AbortController();
    let signalled: AbortSignal | undefined;
    const slow: Embed = (_texts, signal) => {
      signalled = signal;
      setImmediate(() => controller.abort());
      return new Promise(() => undefined);
    };
    const search = meaningSearch(request({ embed: slow, signal: controller.signal }));
    expect(await search).to.equal(undefined);
    expect(signalled?.aborted).to.equal(true);
  });
});
