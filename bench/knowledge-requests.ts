/**
 * The knowledge benchmark's requests: each visitor question asked of each load site, signed in
 * advance for the site's session (wrk cannot sign). Request n goes to site n mod S with question
 * n div S, so wrk's rotation through them (wrk.ts) deals the calls to the sites in turn and each
 * site's 300 a minute is spent evenly.
 */
import type { BenchSite } from "./query-work.ts";
import { signedPost } from "./widget-signing.ts";
import type { WrkRequest } from "./wrk.ts";

/** What the agent's `search_site` asks by default. */
const LIMIT = 3;

export function signedSearches(sites: readonly BenchSite[], questions: string[]): WrkRequest[] {
  return questions.flatMap((query) => {
    const body = JSON.stringify({ query, limit: LIMIT });
    return sites.map((site) => signedPost(site, `/v1/${site.siteId}/knowledge`, body));
  });
}
