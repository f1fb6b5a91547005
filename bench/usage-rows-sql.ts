/**
 * One `INSERT INTO usage_events … SELECT` that makes a range of a site's generated usage events
 * inside the database (analytics-load.ts): the row numbers come from a series, every column is an
 * expression of the row number, and the SQL is the same on both databases but for two small
 * hooks (the series, and a number written with leading zeros).
 *
 * Row i of a site belongs to session s = i / 8 and is its event k = i % 8: session_start,
 * function_call and db_query in turn three times each, then session_end lasting 30–599 s. The
 * sessions start evenly over the span (some 25 s apart for the busy site's 10 million events),
 * their events 20 s apart with up to 20 s of jitter. A function_call names one of six functions,
 * the first far more often than the last, has the widget's `client_event_id` and a page in its
 * metadata; a db_query has its filters. Ids are ULIDs of the row's time in the service's form
 * (`evt_` and 26 lower-case Crockford characters), the random part replaced by the site's number
 * and the row number (the session's, for session ids), so they are unique and, like the
 * service's, ordered by time.
 */
import type { Database } from "../core/store/database.ts";
import { USAGE_COLUMNS } from "../core/store/repos/usage-event-row.ts";

export interface UsageSeries {
  siteId: string;
  /** 0–9: makes ids unique across sites. */
  siteNo: number;
  /** All the site's events, which its sessions are spread over. */
  events: number;
  /** The first session's start, ms since the epoch. */
  from: number;
  /** The sessions start in [from, from + span). */
  span: number;
  /** The rows [first, end) this statement writes. */
  rows: [number, number];
}

interface Dialect {
  /** The CTE `g(i)` of the integers first … end − 1, preceded by WITH. */
  series(first: number, end: number): string;
  /** The integer expression `value` as `width` decimal digits. */
  digits(value: string, width: number): string;
}

const DIALECTS: Record<"sqlite" | "postgres", Dialect> = {
  sqlite: {
    series: (first, end) =>
      `with recursive g(i) as (select ${first} union all select i + 1 from g where i < ${end - 1})`,
    digits: (value, width) => `printf('%0${width}d', ${value})`,
  },
  postgres: {
    series: (first, end) =>
      `with g(i) as (select generate_series(${first}::bigint, ${end - 1}::bigint))`,
    digits: (value, width) => `lpad((${value})::text, ${width}, '0')`,
  },
};

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/** The 10 characters of a ULID's time part: 48 bits, 5 at a time, most significant first. */
function ulidTime(ms: string): string {
  return Array.from(
    { length: 10 },
    (_, j) => `substr('${CROCKFORD}', cast(((${ms} >> ${5 * (9 - j)}) & 31) + 1 as integer), 1)`,
  ).join(" || ");
}

/** Six functions, `search_database` about a third of the calls, `get_directions` 3%. */
const FUNCTIONS: Array<[string, number]> = [
  ["search_database", 35],
  ["lookup_opening_hours", 60],
  ["scroll_to", 78],
  ["check_availability", 90],
  ["submit_lead", 97],
  ["get_directions", 100],
];

const columns = USAGE_COLUMNS;

function insertSql(series: UsageSeries, dialect: Dialect): string {
  const sessions = Math.ceil(series.events / 8);
  const id = (prefix: string, time: string, n: string) =>
    `'${prefix}_' || ${ulidTime(time)} || '${series.siteNo}' || ${dialect.digits(n, 15)}`;
  const isCall = "k in (1, 3, 5)";
  const share = "(i * 2654435761) % 100";
  const functionName = FUNCTIONS.map(([name, below]) => `when ${share} < ${below} then '${name}'`);
  return (
    `${dialect.series(series.rows[0], series.rows[1])},` +
    ` e as (select i, i / 8 as s, i % 8 as k from g),` +
    ` r as (select i, s, k, ${series.from} + (s * ${series.span}) / ${sessions} as ts from e),` +
    ` x as (select i, s, k, ts, ts + k * 20000 + (i * 7919) % 20000 as t from r)` +
    ` insert into usage_events (${columns.join(", ")}) select` +
    ` ${id("evt", "t", "i")}, ?, ${id("sess", "ts", "s")},` +
    ` case when k = 0 then 'session_start' when k = 7 then 'session_end'` +
    ` when ${isCall} then 'function_call' else 'db_query' end,` +
    ` case when ${isCall} then case ${functionName.join(" ")} end end,` +
    ` case when k = 7 then 30 + (s * 7919) % 570 end,` +
    ` null,` +
    ` case when ${isCall} then '{"page":"/menu"}' when k in (2, 4, 6) then '{"filters":1}' end,` +
    ` case when ${isCall} then 'bulk-' || i end,` +
    ` t from x`
  );
}

/** Writes the rows `series.rows` of the site's events (none for an empty range). */
export async function insertUsageRows(db: Database, series: UsageSeries): Promise<void> {
  if (series.rows[1] <= series.rows[0]) return;
  if (db.client === "mysql")
    throw new Error("the analytics benchmark runs on SQLite and PostgreSQL");
  await db.knex.raw(insertSql(series, DIALECTS[db.client]), [series.siteId]);
}
