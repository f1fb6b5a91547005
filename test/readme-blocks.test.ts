/** How the README test finds the calls of a shell block and what each announces and shows. */
import { expect } from "chai";
import { answeringRuns, readmeExamples, type Call } from "./helpers/readme-blocks.ts";

const block = (lines: string[]) => ["Text.", "", "```sh", ...lines, "```", ""].join("\n");

describe("the README's shell blocks, read for the README test", () => {
  it("reads a call without an announcement as any 2xx with nothing shown", () => {
    const [example] = readmeExamples(block(["curl -s localhost:8787/v1/health"]));
    expect(example?.calls).to.deep.equal([
      { expected: undefined, raw: undefined, shown: undefined, repeated: false },
    ]);
  });

  it("reads a call in an until loop's condition as one the block may run several times", () => {
    const [example] = readmeExamples(
      block(['until curl -s x | grep -q \'"status":"done"\'; do sleep 1; done', "curl -s y"]),
    );
    expect(example?.calls.map((call) => call.repeated)).to.deep.equal([true, false]);
  });

  it("reads the statuses a call's line announces", () => {
    const [example] = readmeExamples(block(["curl -s x   # → 503 or 200"]));
    expect(example?.calls[0]?.expected).to.deep.equal([503, 200]);
  });

  it("reads a page, script or stream announced after the status", () => {
    const [example] = readmeExamples(block(["curl -sI x   # → 200 javascript"]));
    expect(example?.calls[0]).to.deep.include({ expected: [200], raw: "javascript" });
  });

  it("reads a JSON document answered as it is (the OpenAPI document), not the envelope", () => {
    const [example] = readmeExamples(block(["curl -s x   # → 200 json"]));
    expect(example?.calls[0]).to.deep.include({ expected: [200], raw: "json", shown: undefined });
  });

  it("gives a shown output on a line of its own to the call before it", () => {
    const [example] = readmeExamples(
      block(["curl -s a", "curl -s b \\", "  -d '{}'", '# → {"success":true,…}']),
    );
    expect(example?.calls.map((call) => call.shown)).to.deep.equal([
      undefined,
      '{"success":true,…}',
    ]);
  });

  it("reads an output shown after the status on the call's own line", () => {
    const [example] = readmeExamples(block(['curl -s x   # → 404 {"success":false,…}']));
    expect(example?.calls[0]).to.deep.include({ expected: [404], shown: '{"success":false,…}' });
  });

  it("takes words after the status as words, not an output", () => {
    const [example] = readmeExamples(block(["curl -s x   # → 401 without a session"]));
    expect(example?.calls[0]).to.deep.include({ expected: [401], shown: undefined });
  });

  it("leaves out blocks without a curl command", () => {
    expect(readmeExamples(block(["npm start"]))).to.deep.equal([]);
  });
});

describe("the runs of a README block, matched to its calls", () => {
  const once: Call = { expected: undefined, raw: undefined, shown: undefined, repeated: false };
  const waiting: Call = { ...once, repeated: true };

  it("answers each call with its own run", () => {
    expect(answeringRuns([once, once], ["-s a", "-s a"])).to.deep.equal([0, 1]);
  });

  it("answers a call an until loop repeats with the last of its runs", () => {
    expect(
      answeringRuns([once, waiting, once], ["-s a", "-s b", "-s b", "-s b", "-s c"]),
    ).to.deep.equal([0, 3, 4]);
  });

  it("finds no answer when a call did not run", () => {
    expect(answeringRuns([once, once], ["-s a"])).to.equal(undefined);
  });

  it("finds no answer when a run is no call's", () => {
    expect(answeringRuns([once], ["-s a", "-s b"])).to.equal(undefined);
  });
});
