/**
 * Airtable's List records (`GET /v0/{baseId}/{tableIdOrName}`) as the adapter uses it: the URL
 * of a search (filterByFormula, sort[n][field]/[direction], fields[], pageSize), and the walk
 * through its pages by `offset`.
 *
 * Airtable answers no total, so the pages are followed to count the matches, up to MAX_COUNTED
 * records (ten pages of 100): a search's `total` is exact below it, and MAX_COUNTED when at
 * least that many match. The cap bounds what one search costs: pages come one after the other,
 * each one request of Airtable's 5 per second per base.
 */
import type { Answer } from "./airtable-schema.ts";
import type { AirtableClient } from "./airtable-client.ts";

/** The most matches counted: past it `total` says "at least this many". */
export const MAX_COUNTED = 1_000;
/** Records per page: Airtable's most (and default). */
export const PAGE_SIZE = 100;

export interface AirtableRecord {
  id: string;
  fields: Record<string, unknown>;
}

export interface RecordsQuery {
  formula?: string;
  sort: { field: string; direction: "asc" | "desc" }[];
  /** Only these fields come back; all when left out. */
  fields?: string[];
}

/** The List records URL of `table` (an id or a name) in the base at `baseUrl`. */
export function recordsUrl(baseUrl: string, table: string, query: RecordsQuery): URL {
  const url = new URL(`${baseUrl}/${encodeURIComponent(table)}`);
  const params = url.searchParams;
  if (query.formula !== undefined) params.append("filterByFormula", query.formula);
  query.sort.forEach(({ field, direction }, index) => {
    params.append(`sort[${index}][field]`, field);
    params.append(`sort[${index}][direction]`, direction);
  });
  for (const field of query.fields ?? []) params.append("fields[]", field);
  params.append("pageSize", String(PAGE_SIZE));
  return url;
}

export interface Pages {
  /** The first `keep` records, in Airtable's order. */
  records: AirtableRecord[];
  /** Records seen, at most MAX_COUNTED. */
  counted: number;
  /** Whether every page was read: `counted` is then every match. */
  complete: boolean;
}

/** Reads the pages of `url`, keeping the first `keep` records and counting the rest. */
export async function readPages(
  client: AirtableClient,
  url: URL,
  keep: number,
  signal: AbortSignal,
): Promise<Answer<Pages>> {
  const records: AirtableRecord[] = [];
  let counted = 0;
  let offset: string | undefined;
  do {
    const pageUrl = new URL(url);
    if (offset !== undefined) pageUrl.searchParams.set("offset", offset);
    const answer = await client.getJson(pageUrl, signal);
    if (!answer.ok) return answer;
    const page = parsePage(answer.value);
    if (page === undefined) {
      return { ok: false, error: "Airtable answered JSON that is not a page of records" };
    }
    records.push(...page.records.slice(0, Math.max(0, keep - records.length)));
    counted += page.records.length;
    // An empty page with an offset would loop forever: it counts as the last.
    offset = page.records.length > 0 ? page.offset : undefined;
  } while (offset !== undefined && counted < MAX_COUNTED);
  return {
    ok: true,
    value: { records, counted: Math.min(counted, MAX_COUNTED), complete: offset === undefined },
  };
}

function parsePage(json: unknown): { records: AirtableRecord[]; offset?: string } | undefined {
  if (!isObject(json) || !Array.isArray(json.records)) return undefined;
  const records = json.records;
  if (!records.every((r) => isObject(r) && typeof r.id === "string" && isObject(r.fields))) {
    return undefined;
  }
  const offset = typeof json.offset === "string" && json.offset !== "" ? json.offset : undefined;
  return { records: records as AirtableRecord[], offset };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A record's fields as an item, with `false` for each of `checkboxes` it leaves out: Airtable
 * omits every empty value, an unchecked checkbox too, but false is a value. Other absent fields
 * stay absent rather than null: to the service both mean empty (it returns only the fields an
 * item has).
 */
export function itemOf(record: AirtableRecord, checkboxes: readonly string[]) {
  const item: Record<string, unknown> = { ...record.fields };
  for (const name of checkboxes) if (!Object.hasOwn(item, name)) item[name] = false;
  return item;
}
