/**
 * How a search becomes a REST URL (docs/adapters-and-plugins.md, "REST", and `neq` as `field__neq`): the
 * collection's `source` appended to `baseUrl`, and in querystring mode the Django REST Framework
 * style parameters (`field=value`, `field__gt=value`, `field__in=a,b`, `q`, `ordering`, `limit`).
 * Values go through URLSearchParams, so whatever a visitor says is data, never URL syntax.
 */
import type { AdapterQuery, Filter } from "sitevoice";

/**
 * `baseUrl` followed by `source`, with exactly one slash between them; baseUrl's path and query
 * are kept, and a query in `source` is added to baseUrl's.
 */
export function collectionUrl(baseUrl: string, source: string): URL {
  const url = new URL(baseUrl);
  url.hash = "";
  const mark = source.indexOf("?");
  const path = mark === -1 ? source : source.slice(0, mark);
  const query = mark === -1 ? "" : source.slice(mark + 1);
  const tail = path.replace(/^\/+/, "");
  if (tail !== "") url.pathname = `${url.pathname.replace(/\/+$/, "")}/${tail}`;
  for (const [name, value] of new URLSearchParams(query)) url.searchParams.append(name, value);
  return url;
}

/** The DRF lookup suffix of each operator; `eq` has none. */
const SUFFIX: Record<Filter["operator"], string> = {
  eq: "",
  neq: "__neq",
  gt: "__gt",
  gte: "__gte",
  lt: "__lt",
  lte: "__lte",
  contains: "__contains",
  in: "__in",
};

/** A filter value as text: booleans as `true`/`false` (what django-filter's BooleanFilter reads). */
const text = (value: unknown): string => (typeof value === "string" ? value : String(value));

/**
 * Adds `query` to `url` as querystring-mode parameters: the filters in their order, then `q`,
 * `ordering` and `limit`.
 */
export function addQueryParameters(url: URL, query: AdapterQuery): URL {
  const params = url.searchParams;
  for (const filter of query.filters) {
    const value = Array.isArray(filter.value)
      ? filter.value.map(text).join(",")
      : text(filter.value);
    params.append(`${filter.field}${SUFFIX[filter.operator]}`, value);
  }
  if (query.text !== undefined && query.text !== "") params.append("q", query.text);
  if (query.sort !== undefined) {
    params.append("ordering", `${query.sort.direction === "desc" ? "-" : ""}${query.sort.field}`);
  }
  params.append("limit", String(query.limit));
  return url;
}
