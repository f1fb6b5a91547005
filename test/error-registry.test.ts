/** The error table of docs/api/errors.md and the error registry must say the same thing. */
import { expect } from "chai";
import { errorCodes } from "../core/errors.ts";
import { ERROR_STATUS } from "../core/http/error-status.ts";
import { docPage } from "./helpers/docs.ts";

describe("error registry", () => {
  it("matches the error table of the errors page code for code and status for status", () => {
    const page = docPage("docs/api/errors.md");
    const rows = [...page.matchAll(/^\|\s*(\d{3})\s*\|\s*`([a-z_]+)`\s*\|/gm)].map((m) => [
      m[2],
      Number(m[1]),
    ]);
    expect(rows.length, "docs/api/errors.md has an error table").to.be.greaterThan(0);
    const registry = Object.keys(errorCodes).map((code) => [
      code,
      ERROR_STATUS[code as keyof typeof ERROR_STATUS],
    ]);
    expect(Object.fromEntries(rows)).to.deep.equal(Object.fromEntries(registry));
  });
});
