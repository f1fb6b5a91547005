/**
 * `sitevoice`: what a plugin author imports, and all the built-in plugins import (with
 * `sitevoice/sql` for SQL adapters): the plugin contract, the search types, in-memory search for
 * backends that cannot filter, and small helpers. `definePlugin` only gives types, so a plugin
 * written in plain JavaScript needs nothing from here at run time.
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
export { inferFields, searchInMemory } from "./search/in-memory-search.ts";
export type { InMemoryQuery, InMemoryResult } from "./search/in-memory-search.ts";
export { readCappedBody } from "./util/read-capped.ts";
export { messageOf } from "./util/message-of.ts";
export { outboundRefusal } from "./security/outbound-policy.ts";
export { ResponseTooLargeError } from "./security/guarded-request.ts";
export type {
  GuardedRequest,
  OutboundRequestOptions,
  OutboundResponse,
} from "./security/guarded-request.ts";
