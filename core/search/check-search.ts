/**
 * Turns a request's SearchParams into the query an adapter may run: the shape by its JSON Schema
 * (400 for a malformed body, 422 for an unknown operator or an out-of-range value), then every
 * field name against the collection's lists (422 naming the field and the collection). Past this
 * point every identifier is one the site's owner listed.
 */
import { errors } from "../errors.ts";
import { validateBody } from "../validation/schema-validator.ts";
import {
  MAX_SEARCH_LIMIT,
  type AdapterQuery,
  type CollectionSpec,
  type SearchParams,
} from "./search-types.ts";

/** The collections of a site's adapter, as the site config holds them (keyed by name). */
export type SiteCollections = Record<string, Omit<CollectionSpec, "name">>;

/**
 * What a search checks against, made once per collection object of a site config (the site
 * cache hands out one config object per site version, so a new version is a new key): the
 * collection with its name, and every field a request may name.
 */
interface CheckedCollection {
  spec: CollectionSpec;
  allowed: ReadonlySet<string>;
}
const checked = new WeakMap<object, CheckedCollection>();

function checkedCollection(name: string, found: Omit<CollectionSpec, "name">): CheckedCollection {
  let entry = checked.get(found);
  if (entry === undefined || entry.spec.name !== name) {
    const spec = { name, ...found };
    entry = { spec, allowed: new Set(allowedFields(spec)) };
    checked.set(found, entry);
    checked.set(spec, entry);
  }
  return entry;
}

/** The fields a request may name in `collection`, as a set (made once per collection). */
function allowedSet(collection: CollectionSpec): ReadonlySet<string> {
  return checked.get(collection)?.allowed ?? checkedCollection(collection.name, collection).allowed;
}

/**
 * The collection named by `params.collection`, or 422 listing the site's collections. The same
 * object for every search of a site version: callers and adapters read it, never change it.
 */
export function collectionOf(collections: SiteCollections, name: string): CollectionSpec {
  const found = Object.hasOwn(collections, name) ? collections[name] : undefined;
  if (found === undefined) {
    const known = Object.keys(collections).sort();
    throw errors.validationFailed(
      `collection "${name}" is not a collection of this site${known.length > 0 ? ` (${known.join(", ")})` : ""}`,
      { field: "collection", collections: known },
    );
  }
  return checkedCollection(name, found).spec;
}

/** Every field a request may name: searchable, filterable and display fields together. */
export function allowedFields(collection: CollectionSpec): string[] {
  return [
    ...new Set([
      ...collection.searchable_fields,
      ...collection.filterable_fields,
      ...collection.display_fields,
    ]),
  ];
}

/**
 * Validates `body` as SearchParams, filling in its defaults: the caller hands over a body of its
 * own (one just parsed), not one it keeps using as it was.
 */
export function parseSearchParams(body: unknown): SearchParams {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw errors.invalidRequest("The body must be a SearchParams object", { field: "body" });
  }
  return validateBody<SearchParams>("search-params", body);
}

/** The adapter's query for valid `params` on `collection`; 422 for a field it does not list. */
export function checkSearch(collection: CollectionSpec, params: SearchParams): AdapterQuery {
  const allowed = allowedSet(collection);
  const mustBeField = (field: string, where: string) => {
    if (allowed.has(field)) return;
    throw errors.validationFailed(
      `field "${field}" is not a field of collection "${collection.name}"` +
        (allowed.size > 0 ? ` (allowed: ${[...allowed].join(", ")})` : ""),
      { field: where, collection: collection.name, allowed: [...allowed] },
    );
  };
  const filters = params.filters ?? [];
  filters.forEach((filter, index) => mustBeField(filter.field, `filters.${index}.field`));
  if (params.sort_by !== undefined) mustBeField(params.sort_by, "sort_by");
  const text = params.query?.trim();
  if (text && collection.searchable_fields.length === 0) {
    throw errors.validationFailed(
      `collection "${collection.name}" has no searchable fields, so it takes no free-text query`,
      { field: "query", collection: collection.name },
    );
  }
  return {
    text: text || undefined,
    searchFields: [...collection.searchable_fields],
    filters: filters.map((f) => ({ ...f })),
    sort:
      params.sort_by === undefined
        ? undefined
        : { field: params.sort_by, direction: params.sort_direction ?? "asc" },
    limit: params.limit ?? MAX_SEARCH_LIMIT,
    fields: returnedFields(collection),
  };
}

/** The display fields, or all three lists when the collection names none. */
export function returnedFields(collection: CollectionSpec): string[] {
  return collection.display_fields.length > 0
    ? [...collection.display_fields]
    : allowedFields(collection);
}
