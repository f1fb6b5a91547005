/**
 * What a page asks of crawlers beyond robots.txt, as search engines read it: the rules of
 * `<meta name="robots">` and of a meta named for the crawler's product token, and of the
 * `X-Robots-Tag` header, unprefixed or prefixed with that token (`sitevoicebot: noindex`);
 * another crawler's rules (`googlebot: noindex`) are not its own. Only `noindex`, `nofollow` and
 * `none` (both) change what the crawler does; any other rule is ignored.
 */

export interface PageDirectives {
  /** Keep nothing of the page: not its text, not its outline. */
  noindex: boolean;
  /** Follow none of its links. */
  nofollow: boolean;
}

/** Rules that take a value after a colon, so that their name is not a crawler's. */
const VALUED = new Set([
  "unavailable_after",
  "max-snippet",
  "max-image-preview",
  "max-video-preview",
]);

/** The product token robots rules name a crawler by: `SitevoiceBot/1.0 (…)` → `sitevoicebot`. */
export function productToken(userAgent: string): string {
  return (userAgent.trim().split(/[\s/]/)[0] ?? "").toLowerCase();
}

/**
 * The directives for the crawler `token` (productToken) in the contents of the page's metas for
 * it (`robots` and its own name) and the values of its X-Robots-Tag headers (several headers may
 * arrive joined by commas: a `name:` prefix names the crawler the rules after it are for).
 */
export function pageDirectives(
  metaContents: readonly string[],
  headerValues: readonly string[],
  token: string,
): PageDirectives {
  const rules: string[] = metaContents.flatMap((content) => content.split(","));
  for (const value of headerValues) {
    let ours = true;
    for (const part of value.split(",")) {
      const prefixed = /^\s*([^\s:]+)\s*:\s*(.*)$/.exec(part);
      if (prefixed !== null && !VALUED.has(prefixed[1]!.toLowerCase())) {
        ours = prefixed[1]!.toLowerCase() === token;
        if (ours) rules.push(prefixed[2]!);
      } else if (ours) rules.push(part);
    }
  }
  const names = new Set(rules.map((rule) => rule.trim().toLowerCase()));
  return {
    noindex: names.has("noindex") || names.has("none"),
    nofollow: names.has("nofollow") || names.has("none"),
  };
}
