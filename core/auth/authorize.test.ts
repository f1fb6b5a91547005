/** The site rule of a key limited to some sites, as a yes or no and as a refusal. */
import { expect } from "chai";
import { refusalOf } from "../../test/helpers/thrown.ts";
import { assertSiteAllowed, isSiteAllowed } from "./authorize.ts";
import { operatorPrincipal, type Principal } from "./principal.ts";

const everySite = operatorPrincipal("ws_a", "test");
const onlyA: Principal = { ...everySite, kind: "api_key", siteIds: new Set(["site-a"]) };

describe("a key's sites", () => {
  it("a key with no site list may touch any site", () => {
    expect(isSiteAllowed(everySite, "site-b")).to.equal(true);
    expect(() => assertSiteAllowed(everySite, "site-b")).not.to.throw();
  });

  it("a key limited to some sites may touch those", () => {
    expect(isSiteAllowed(onlyA, "site-a")).to.equal(true);
    expect(() => assertSiteAllowed(onlyA, "site-a")).not.to.throw();
  });

  it("a key limited to some sites may not touch another: false, or 403 naming it", () => {
    expect(isSiteAllowed(onlyA, "site-b")).to.equal(false);
    const refusal = refusalOf(() => assertSiteAllowed(onlyA, "site-b"));
    expect(refusal.code).to.equal("forbidden");
    expect(refusal.details).to.deep.equal({ site_id: "site-b" });
  });
});
