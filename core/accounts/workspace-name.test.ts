/**
 * Which workspace names are refused: anything a mail reader would make a link of (a scheme, `www.`,
 * a host name, an address), also behind look-alike dots, and line breaks or invisible characters
 * that would let a name pass for the mail's own text; ordinary names with dots are kept.
 */
import { expect } from "chai";
import { checkWorkspaceName, mailableWorkspaceName } from "./workspace-name.ts";

const refusal = (name: string) => {
  try {
    checkWorkspaceName(name, "workspace_name");
    return undefined;
  } catch (error) {
    return error as { code: string; details: { field: string } };
  }
};

describe("workspace names", () => {
  for (const name of [
    "https://evil.example/login",
    "Acme (hxxp fixed: http://evil.example)",
    "ftp://files.example",
    "www.evil.example",
    "WWW.Evil.Example",
    "evil.example/path",
    "Sign in at paypal-help.com now",
    "help@evil.example",
    "evil.xn--p1ai",
    "login.evil.рф",
    "evil．example", // a full-width dot
    "10.0.0.1/admin",
    "mailto:help",
    "javascript:alert(1)",
    "evil\u200c.example", // a joiner before the dot
  ]) {
    it(`refuses ${JSON.stringify(name)} as holding a link, 400 on the field named`, () => {
      const error = refusal(name);
      expect(error?.code).to.equal("invalid_request");
      expect(error?.details.field).to.equal("workspace_name");
    });
  }

  for (const name of ["Acme\nYour account is locked", "Acme\u202egnp.exe", "Acme\u0000"]) {
    it(`refuses ${JSON.stringify(name)} for a line break or an invisible character`, () => {
      expect(refusal(name)?.code).to.equal("invalid_request");
    });
  }

  for (const name of [
    "Acme",
    "Acme Inc.",
    "St. Mary's Dental",
    "J. Doe & Co.",
    "Studio v2.0",
    "Bright Smiles: Dental",
    "Müller GmbH",
    'The "Best" <Bakery>',
    "می\u200cخانه", // Persian, written with a zero-width non-joiner
  ]) {
    it(`keeps ${JSON.stringify(name)}`, () => {
      expect(refusal(name)).to.equal(undefined);
    });
  }

  it("leaves a stored name holding a link out of mail, and gives any other as it is", () => {
    expect(mailableWorkspaceName("www.evil.example")).to.equal(undefined);
    expect(mailableWorkspaceName("Acme Inc.")).to.equal("Acme Inc.");
  });
});
