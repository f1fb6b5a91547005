/* Generated from schemas/knowledge-search.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/:siteId/knowledge` (signed by the session, as `query` is): a search of what the site's own pages say, made by the agent's `search_site` tool. The answer is the passages that match best, best first.
 */
export interface SiteKnowledgeSearch {
  /**
   * What the visitor asked, or the words to look for: 1 to 500 characters, not only spaces.
   */
  query: string;
  /**
   * How many passages to return, 1 to 5; 3 when left out.
   */
  limit?: number;
}
