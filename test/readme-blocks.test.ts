/** How the README test finds the calls of a shell block and what each announces and shows. */
import { expect } from "chai";
import { readmeExamples } from "./helpers/readme-blocks.ts";

const block = (lines: string[]) => ["Text.", "", "```sh", ...lines, "```", ""].join("\n");

describe("the README's shell blocks, read for the README test", () => {
  it("reads a call without an announcement as any 2xx with nothing shown", () => {
    const [example] = readmeExamples(block(["curl -s localhost:8787/v1/health"]));
    expect(example?.calls).to.deep.equal([
      { expected: undefined, raw: undefined, shown: undefined },
    ]);
  });

  it("reads the statuses a call's line announces", () => {
    const [example] = readmeExamples(block(["curl -s x   # → 503 or 200"]));
    expect(example?.calls[0]?.expected).to.deep.equal([503, 200]);
  });

  it("reads a page, script or stream announced after the status", () => {
    const [example] = readmeExamples(block(["curl -sI x   # → 200 javascript"]));
    expect(example?.calls[0]).to.deep.include({ expected: [200], raw: "javascript" });
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
