/**
 * The search path's shapes: SearchParams as the widget and the API send them (the API reference), the
 * collection an adapter searches, the checked query an adapter receives, and what it answers.
 */

/** The filter operators of the API reference, exactly. */
export const FILTER_OPERATORS = ["eq", "neq", "gt", "gte", "lt", "lte", "contains", "in"] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export type { Filter, SearchParams } from "../types/generated/search-params.ts";
import type { Filter } from "../types/generated/search-params.ts";

/** The most items a search returns (the API reference), and the number when `limit` is not given. */
export const MAX_SEARCH_LIMIT = 10;

/** One collection of a site's adapter, with its name. */
export interface CollectionSpec {
  name: string;
  /** REST: the path after baseUrl. SQL: a table or view, optionally `schema.table`. */
  source: string;
  searchable_fields: string[];
  filterable_fields: string[];
  display_fields: string[];
  /** What the collection holds, in the owner's words (offered to the voice agent). */
  description?: string;
}

/**
 * A search as an adapter receives it: every field name in it is one the collection allows, so an
 * adapter may use them as identifiers (quoted); values are still untrusted and must be bound.
 */
export interface AdapterQuery {
  /** Free text: a case-insensitive substring of any field of `searchFields`. */
  text?: string;
  /** The collection's searchable fields (what `text` matches). */
  searchFields: string[];
  /** All must hold. `contains` is a case-insensitive substring; `eq` is exact. */
  filters: Filter[];
  sort?: { field: string; direction: "asc" | "desc" };
  /** 1 to MAX_SEARCH_LIMIT. */
  limit: number;
  /** The fields to return: the display fields, or all three lists when display is empty. */
  fields: string[];
}

/** What an adapter answers. `total` counts every match, `items` at most `limit` of them. */
export type SearchResult =
  | { success: true; total: number; items: Record<string, unknown>[] }
  | { success: false; error: string };

/** The field types of site intelligence (the API reference). */
export const FIELD_TYPES = [
  "string",
  "number",
  "boolean",
  "date",
  "array",
  "object",
  "unknown",
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface CollectionIntrospection {
  name: string;
  source: string;
  recordCount?: number;
  description?: string;
  fields: { name: string; type: FieldType; sample?: unknown }[];
}
