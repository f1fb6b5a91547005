/**
 * The knowledge benchmark's requests (bench/knowledge-requests.ts): visitor questions signed for
 * each load site's session, dealt so that wrk's rotation (bench/wrk.ts: request after request,
 * from the first again after the last) spreads the calls evenly over the sites.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import { signedSearches } from "../bench/knowledge-requests.ts";
import type { BenchSite } from "../bench/query-work.ts";
import { validateBody } from "../core/validation/schema-validator.ts";

const sites: BenchSite[] = [0, 1, 2].map((i) => ({
  siteId: `ev-0000${i}`,
  origin: `https://shop-${i}.example`,
  sessionId: `ses_${i}`,
  secret: `secret-${i}`,
}));
const QUESTIONS = ["opening hours sunday", "gluten free menu", "private dining deposit"];

const bodyOf = (request: { body?: string }) => JSON.parse(request.body!) as { query: string };

describe("the knowledge benchmark's requests", () => {
  it("deals the calls to the sites in turn", () => {
    const requests = signedSearches(sites, QUESTIONS);
    expect(requests.map((r) => r.path)).to.deep.equal(
      Array.from({ length: 9 }, (_, k) => `/v1/ev-0000${k % 3}/knowledge`),
    );
  });

  it("asks every question of every site", () => {
    const requests = signedSearches(sites, QUESTIONS);
    const asked = requests.map((r) => `${r.path} ${bodyOf(r).query}`);
    expect(new Set(asked).size).to.equal(sites.length * QUESTIONS.length);
  });

  it("sends bodies the endpoint's schema takes", () => {
    const [request] = signedSearches(sites, QUESTIONS);
    expect(() => validateBody("knowledge-search", JSON.parse(request!.body!))).to.not.throw();
  });

  it("signs each body with its site's session secret, from the site's origin", () => {
    const request = signedSearches(sites, QUESTIONS)[4]!;
    const mac = crypto.createHmac("sha256", "secret-1").update(request.body!).digest("hex");
    expect(request.headers).to.deep.include({
      Origin: "https://shop-1.example",
      "X-Service-Session": "ses_1",
      "X-Service-Signature": `sha256=${mac}`,
    });
  });
});
