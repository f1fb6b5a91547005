/** The README's error table and the error registry must say the same thing. */
import fs from "node:fs";
import { expect } from "chai";
import { errorCodes } from "../core/errors.ts";
import { ERROR_STATUS } from "../core/http/error-status.ts";

describe("error registry", () => {
  it("matches the README's error table code for code and status for status", () => {
    const readme = fs.readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const section = readme.split(/^## Errors$/m)[1]?.split(/^## /m)[0] ?? "";
    const rows = [...section.matchAll(/^\|\s*(\d{3})\s*\|\s*`([a-z_]+)`\s*\|/gm)].map((m) => [
      m[2],
      Number(m[1]),
    ]);
    expect(rows.length, "README has an error table under '## Errors'").to.be.greaterThan(0);
    const registry = Object.keys(errorCodes).map((code) => [
      code,
      ERROR_STATUS[code as keyof typeof ERROR_STATUS],
    ]);
    expect(Object.fromEntries(rows)).to.deep.equal(Object.fromEntries(registry));
  });
});
