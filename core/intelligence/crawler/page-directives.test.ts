import { expect } from "chai";
import { pageDirectives, productToken } from "./page-directives.ts";

describe("page directives", () => {
  const none = { noindex: false, nofollow: false };

  it("names the crawler by its user agent's product token, lower-cased", () => {
    expect(productToken("SitevoiceBot/1.0 (+https://sitevoice.example/bot)")).to.equal(
      "sitevoicebot",
    );
    expect(productToken("Sitevoice-Crawler")).to.equal("sitevoice-crawler");
  });

  it("reads noindex and nofollow from metas, any case, among other rules", () => {
    expect(pageDirectives(["max-snippet:20, NoIndex", "nofollow"], [], "bot")).to.deep.equal({
      noindex: true,
      nofollow: true,
    });
  });

  it("reads none as both", () => {
    expect(pageDirectives([], ["none"], "bot")).to.deep.equal({ noindex: true, nofollow: true });
  });

  it("takes a header's rules prefixed with its own token, not another crawler's", () => {
    expect(pageDirectives([], ["googlebot: noindex, bot: nofollow"], "bot")).to.deep.equal({
      noindex: false,
      nofollow: true,
    });
  });

  it("keeps a prefix for the rules after it in headers joined by commas", () => {
    expect(pageDirectives([], ["googlebot: nofollow, noindex"], "bot")).to.deep.equal(none);
  });

  it("does not read a valued rule's name as a crawler's", () => {
    expect(
      pageDirectives([], ["unavailable_after: Sunday, 01-Sep-2030 00:00:00 GMT, noindex"], "bot"),
    ).to.deep.equal({ noindex: true, nofollow: false });
  });

  it("finds nothing in none of them", () => {
    expect(pageDirectives([], [], "bot")).to.deep.equal(none);
  });
});
