/**
 * A cached site-intelligence row as the endpoint answers it, checked against the site's current
 * config on every read.
 */
import { allowedFields, returnedFields } from "../search/check-search.ts";
import type { SiteConfig } from "../sites/site-types.ts";
import type { SiteIntelligenceRow } from "../store/repos/site-intelligence-repo.ts";
import type { DataView, SiteIntelligenceResponse, SiteView } from "./site-intelligence-types.ts";

/**
 * The answer of a row for the site as it is now: a collection or field the site's config no
 * longer allows (or a sample of a field searches no longer return) is left out even before the
 * row is rebuilt, since the row may be of an older version.
 */
export function responseOf(row: SiteIntelligenceRow, site: SiteConfig): SiteIntelligenceResponse {
  const answer: SiteIntelligenceResponse = {
    generatedAt: new Date(row.generated_at).toISOString(),
  };
  if (row.site !== null) answer.site = siteOf(JSON.parse(row.site) as SiteView);
  const collections = site.adapter?.collections;
  if (collections !== undefined) {
    const stored = (JSON.parse(row.data) as DataView).collections ?? [];
    answer.data = {
      collections: stored.flatMap((collection) => {
        const spec = Object.hasOwn(collections, collection.name)
          ? collections[collection.name]
          : undefined;
        if (spec === undefined) return [];
        const current = { name: collection.name, ...spec };
        const allowed = new Set(allowedFields(current));
        const returned = new Set(returnedFields(current));
        const fields = collection.fields
          .filter((field) => allowed.has(field.name))
          .map(({ sample, ...field }) =>
            returned.has(field.name) && sample !== undefined ? { ...field, sample } : field,
          );
        return [{ ...collection, fields }];
      }),
    };
  }
  answer.personality_prompt = row.prompt;
  return answer;
}

/** A stored view as answered now: one stored before the site's knowledge existed holds none. */
function siteOf(view: SiteView): SiteView {
  return {
    ...view,
    pages: view.pages.map((page) => ({ ...page, sections: page.sections ?? 0 })),
    knowledge: view.knowledge ?? { updatedAt: null },
  };
}
