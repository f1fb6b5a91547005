/**
 * A site's `enabled_pages` and `disabled_pages` as one test of a URL path, as the schema defines
 * them (schemas/site.schema.json, PagePattern): a pattern starts with `/`, `*` matches any run
 * of characters (`/` included), the rest matches itself, the whole path must match, and the
 * query string is not matched. A page is in when an enabled pattern matches it and no disabled
 * one does. No other module interpreted these patterns before the crawler (the widget reads
 * them from its config), so this is the one place that does.
 */

/** The default of `enabled_pages`: every page. */
export const EVERY_PAGE: readonly string[] = ["/*"];

const compile = (pattern: string): RegExp =>
  new RegExp(`^${pattern.split("*").map(escape).join(".*")}$`, "s");

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** Whether a path (no query, no fragment) is in: see the header comment. */
export function pagePatternTest(site: {
  enabled_pages?: readonly string[];
  disabled_pages?: readonly string[];
}): (path: string) => boolean {
  const enabled = (site.enabled_pages ?? EVERY_PAGE).map(compile);
  const disabled = (site.disabled_pages ?? []).map(compile);
  return (path) => enabled.some((re) => re.test(path)) && !disabled.some((re) => re.test(path));
}
