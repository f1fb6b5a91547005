import { expect } from "chai";
import { httpStatus } from "../http/error-status.ts";
import { problemsError, type Problem } from "./problems-error.ts";

const shape: Problem = {
  field: "timezone",
  message: "timezone must be an IANA zone",
  kind: "shape",
};
const rule: Problem = {
  field: "voice",
  message: '"bogus" is not a voice',
  kind: "rule",
  details: { voices: ["alloy"] },
};
const conflict: Problem = {
  field: "domain",
  message: "Domain a.example already belongs to site 'a' of this workspace",
  kind: "conflict",
  details: { domain: "a.example", site_id: "a" },
};

/** The status, code, first field and listed fields of the error `problems` become. */
function answer(problems: Problem[]) {
  const error = problemsError(problems);
  const listed = error.details.errors as { field: string; code: string }[];
  return {
    status: httpStatus(error),
    code: error.code,
    field: error.details.field,
    fields: listed.map((entry) => entry.field),
    codes: listed.map((entry) => entry.code),
  };
}

describe("problemsError", () => {
  it("answers a mix of all three kinds 400, listed shape, rule, conflict", () => {
    expect(answer([conflict, rule, shape])).to.deep.equal({
      status: 400,
      code: "invalid_request",
      field: "timezone",
      fields: ["timezone", "voice", "domain"],
      codes: ["invalid_request", "validation_failed", "conflict"],
    });
  });

  it("answers rules beside a conflict 422, the rule first", () => {
    expect(answer([conflict, rule])).to.include({ status: 422, code: "validation_failed" });
    expect(answer([conflict, rule]).fields).to.deep.equal(["voice", "domain"]);
  });

  it("answers conflicts alone 409, with the first one's details as before", () => {
    const second = { ...conflict, field: "additional_domains.0" };
    const error = problemsError([conflict, second]);
    expect(httpStatus(error)).to.equal(409);
    expect(error.details).to.include({ field: "domain", domain: "a.example", site_id: "a" });
    expect(error.message).to.equal(`${conflict.message} (and 1 more problem)`);
  });

  it("answers rules alone 422 and shapes alone 400, as before", () => {
    expect(answer([rule]).status).to.equal(422);
    expect(answer([shape]).status).to.equal(400);
  });

  it("keeps each problem's details in its own entry, and the first's in details", () => {
    const error = problemsError([rule, conflict]);
    expect(error.details.voices).to.deep.equal(["alloy"]);
    expect(error.details.errors).to.deep.equal([
      { field: "voice", message: rule.message, code: "validation_failed", voices: ["alloy"] },
      {
        field: "domain",
        message: conflict.message,
        code: "conflict",
        domain: "a.example",
        site_id: "a",
      },
    ]);
  });
});
