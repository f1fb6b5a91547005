/**
 * What the knowledge benchmark reads of the service's log (bench/knowledge-log.ts): the index
 * build's time, and the searches' and the search requests' own times within the measured run.
 */
import { expect } from "chai";
import { readServiceLog } from "../bench/knowledge-log.ts";

const line = (fields: Record<string, unknown>) => JSON.stringify({ level: 30, ...fields });

const WINDOW = { from: 1_000, to: 2_000 };

describe("the knowledge benchmark's reading of the service log", () => {
  it("reads the index build's time and passages", () => {
    const log = [
      line({ time: 10, msg: "site knowledge indexed", passages: 4990, build_ms: 612 }),
      line({ time: 11, msg: "crawl finished", duration_ms: 5000 }),
    ].join("\n");
    expect(readServiceLog(log, WINDOW).build).to.deep.equal({ ms: 612, passages: 4990 });
  });

  it("has no build when no index was built", () => {
    expect(readServiceLog(line({ time: 10, msg: "crawl finished" }), WINDOW).build).to.equal(
      undefined,
    );
  });

  it("takes the searches' times logged within the window only", () => {
    const log = [
      line({ time: 999, msg: "knowledge search", took_ms: 50 }),
      line({ time: 1_000, msg: "knowledge search", took_ms: 1.5 }),
      line({ time: 2_000, msg: "knowledge search", took_ms: 2.25 }),
      line({ time: 2_001, msg: "knowledge search", took_ms: 60 }),
    ].join("\n");
    expect(readServiceLog(log, WINDOW).searchMs).to.deep.equal([1.5, 2.25]);
  });

  it("takes the latencies of the widget's knowledge requests only", () => {
    const log = [
      line({ time: 1_500, msg: "request", path: "/v1/ev-00001/knowledge", latency_ms: 3.5 }),
      line({ time: 1_500, msg: "request", path: "/v1/ev-00001/query", latency_ms: 9 }),
      line({ time: 1_500, msg: "request", path: "/v1/sites/ev-00001/knowledge", latency_ms: 8 }),
      line({ time: 2_500, msg: "request", path: "/v1/ev-00002/knowledge", latency_ms: 7 }),
    ].join("\n");
    expect(readServiceLog(log, WINDOW).requestMs).to.deep.equal([3.5]);
  });

  it("skips the empty line at the end of the file", () => {
    const log = `${line({ time: 1_500, msg: "knowledge search", took_ms: 1 })}\n`;
    expect(readServiceLog(log, WINDOW).searchMs).to.deep.equal([1]);
  });
});
