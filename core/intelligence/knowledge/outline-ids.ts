/**
 * The ids scroll_to may name on a crawled page: its headings' (and those of elements inside them,
 * as the crawler's outline reads them), then the ids its main text's sections scroll to that are
 * not among them (a section's enclosing element's, such as `<section id="hours"><h2>…`), so that
 * every passage search_site answers with can be shown. Each once, headings' first.
 */
import type { Passage } from "./knowledge-types.ts";

export function outlineIds(
  headingIds: readonly string[],
  passages: readonly Pick<Passage, "sectionId">[],
): string[] {
  const ids = new Set(headingIds);
  for (const passage of passages) if (passage.sectionId !== null) ids.add(passage.sectionId);
  return [...ids];
}
