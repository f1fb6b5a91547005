import { expect } from "chai";
import { parse } from "yaml";
import { editYaml } from "./yaml-edit.ts";

const FILE = `# A site, as an agency keeps it
business_name: Luigi's # the sign says so
description: >-
  A long paragraph that the author wrapped at a width of their own choosing, which a
  re-render would wrap differently.

pages: ["/*"]
appearance:
  color: "#0f766e" # brand colour
  size: small
adapter:
  type: rest
  config: { baseUrl: https://api.example, auth: { type: bearer, value: "\${env:T}" } }
`;

describe("editYaml", () => {
  it("writes a key named __proto__ as a key, leaving Object.prototype alone", () => {
    const out = editYaml(FILE, [{ path: ["adapter", "config", "__proto__"], value: { x: 1 } }]);
    expect(Object.hasOwn(Object.prototype, "x")).to.equal(false);
    const data = parse(out) as { adapter: { config: Record<string, unknown> } };
    expect(Object.getOwnPropertyDescriptor(data.adapter.config, "__proto__")?.value).to.deep.equal({
      x: 1,
    });
  });

  it("sets a key under a __proto__ the file lacks without reaching Object.prototype", () => {
    editYaml(FILE, [{ path: ["adapter", "config", "__proto__", "polluted"], value: 1 }]);
    expect(Object.hasOwn(Object.prototype, "polluted")).to.equal(false);
  });

  it("changes a scalar in place, keeping its line comment and every other line", () => {
    const out = editYaml(FILE, [{ path: ["appearance", "size"], value: "large" }]);
    expect(out).to.equal(FILE.replace("size: small", "size: large"));
  });

  it("adds a key at the end of its mapping, at the mapping's indentation", () => {
    const out = editYaml(FILE, [{ path: ["appearance", "position"], value: "bottom-left" }]);
    expect(out).to.equal(
      FILE.replace("  size: small\n", "  size: small\n  position: bottom-left\n"),
    );
  });

  it("removes a key with its lines, a block scalar included", () => {
    const out = editYaml(FILE, [{ path: ["description"] }]);
    expect(out).to.equal(FILE.replace(/description: >-\n( {2}.*\n){2}/, ""));
  });

  it("replaces a flow list in place and a block mapping as a whole", () => {
    const out = editYaml(FILE, [
      { path: ["pages"], value: ["/", "/menu"] },
      { path: ["appearance"], value: { color: "#000000" } },
    ]);
    expect(out).to.include("pages: [/, /menu]\n");
    expect(out).to.include('appearance:\n  color: "#000000"\nadapter:');
    expect(out).to.include(
      "  A long paragraph that the author wrapped at a width of their own choosing, which a\n",
    );
    expect(parse(out).appearance).to.deep.equal({ color: "#000000" });
  });

  it("changes a scalar inside a flow mapping, quoted as JSON", () => {
    const out = editYaml(FILE, [
      { path: ["adapter", "config", "baseUrl"], value: "https://b.example" },
    ]);
    expect(out).to.include('config: { baseUrl: "https://b.example", auth:');
  });

  it("falls back to the Document API when an edit has no simple shape, comments kept", () => {
    const out = editYaml(FILE, [{ path: ["adapter", "config", "headers"], value: { A: "b" } }]);
    expect(parse(out).adapter.config.headers).to.deep.equal({ A: "b" });
    expect(out).to.include("# A site, as an agency keeps it");
    expect(out).to.include("# brand colour");
  });

  it("reads back as exactly the data it was asked to write", () => {
    const out = editYaml(FILE, [
      { path: ["business_name"], value: "It's: a #1 place" },
      { path: ["appearance", "size"], value: 12 },
      { path: ["pages"] },
    ]);
    const data = parse(out);
    expect(data.business_name).to.equal("It's: a #1 place");
    expect(data.appearance.size).to.equal(12);
    expect(data).not.to.have.property("pages");
    expect(out).to.include("# the sign says so");
  });
});
