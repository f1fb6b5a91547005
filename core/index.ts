/**
 * `sitevoice`: what a plugin author imports. `definePlugin` only gives types, so a plugin written
 * in plain JavaScript needs nothing from here at run time.
 */
export * from "./host/index.ts";
export { FIELD_TYPES, FILTER_OPERATORS, MAX_SEARCH_LIMIT } from "./search/search-types.ts";
export type {
  AdapterQuery,
  CollectionIntrospection,
  CollectionSpec,
  FieldType,
  Filter,
  FilterOperator,
  SearchParams,
  SearchResult,
} from "./search/search-types.ts";
