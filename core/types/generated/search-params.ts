/* Generated from schemas/search-params.schema.json by npm run gen:types. Do not edit. */

/**
 * A value compared with a field.
 */
export type Scalar = string | number | boolean;

/**
 * Body of `POST /v1/:siteId/query`: a search of one collection of the site's adapter. Every field name must be one of the collection's searchable, filterable or display fields; the service checks that against the site.
 */
export interface SearchParams {
  /**
   * A key of the site's `adapter.collections`.
   */
  collection: string;
  /**
   * Matched, case-insensitively, as a substring of any searchable field.
   */
  query?: string;
  /**
   * Conditions that must all hold.
   *
   * @maxItems 20
   */
  filters?: Filter[];
  /**
   * A field of the collection to sort by.
   */
  sort_by?: string;
  /**
   * `asc` (the default) or `desc`.
   */
  sort_direction?: ("asc" | "desc") & string;
  /**
   * How many items to return, 1 to 10; 10 when left out.
   */
  limit?: number;
}
/**
 * `field operator value`; for `in` the value is an array of values.
 */
export interface Filter {
  /**
   * A field of the collection.
   */
  field: string;
  /**
   * One of eq, neq, gt, gte, lt, lte, contains, in.
   */
  operator: ("eq" | "neq" | "gt" | "gte" | "lt" | "lte" | "contains" | "in") & string;
  /**
   * A string, number or boolean; for `in`, an array of 1 to 50 of them.
   */
  value: Scalar | Scalar[];
}
