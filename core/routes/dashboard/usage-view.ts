/**
 * A usage summary as the usage page shows it in text: the totals, a row per bucket, the top
 * functions, and for each chart its heading and the text a screen reader reads for it. Numbers
 * are written as in English (1,234.5), costs in US dollars (the service's cents are US cents),
 * buckets by the site's local labels.
 */
import type { Summary, SummaryFigures } from "../../analytics/analytics-service.ts";
import type { Bucket } from "../../analytics/summary-buckets.ts";

type Field = "sessions" | "minutes" | "cost_cents";

export function usageView(summary: Summary, range: { bucket: Bucket; label: string }) {
  const per = range.bucket;
  const { totals } = summary;
  const costKnown = totals.cost_cents !== undefined;
  const chart = (field: Field, title: string) => ({
    field,
    title,
    label: chartLabel(summary, field, `${title}, ${range.label.toLowerCase()}`, per),
  });
  return {
    bucket: per,
    bucketName: `${per[0]!.toUpperCase()}${per.slice(1)}`,
    rangeLabel: range.label,
    timezone: summary.timezone,
    since: utc(summary.period.since),
    until: utc(summary.period.until),
    totals: [
      { field: "sessions", name: "Sessions", value: count(totals.sessions) },
      { field: "minutes", name: "Minutes", value: minutes(totals.minutes) },
      {
        field: "cost",
        name: "Cost",
        value: totals.cost_cents === undefined ? "not known yet" : dollars(totals.cost_cents),
      },
      { field: "function_calls", name: "Function calls", value: count(totals.function_calls) },
      { field: "db_queries", name: "Database queries", value: count(totals.db_queries) },
    ],
    costKnown,
    charts: [
      chart("sessions", `Sessions per ${per}`),
      chart("minutes", `Minutes per ${per}`),
      ...(costKnown ? [chart("cost_cents", `Cost per ${per} (US dollars)`)] : []),
    ],
    rows: summary.buckets.map((bucket) => ({
      label: bucketLabel(bucket.bucket, per),
      sessions: count(bucket.sessions),
      minutes: minutes(bucket.minutes),
      cost: bucket.cost_cents === undefined ? "–" : dollars(bucket.cost_cents),
      function_calls: count(bucket.function_calls),
      db_queries: count(bucket.db_queries),
    })),
    topFunctions: summary.top_functions.map((fn) => ({ name: fn.name, count: count(fn.count) })),
  };
}

/** What a screen reader reads for a chart: its total and its busiest bucket. */
function chartLabel(summary: Summary, field: Field, title: string, per: Bucket): string {
  const text = (figures: SummaryFigures) =>
    field === "sessions"
      ? count(figures.sessions)
      : field === "minutes"
        ? minutes(figures.minutes)
        : dollars(figures.cost_cents ?? 0);
  const value = (figures: SummaryFigures) =>
    field === "cost_cents" ? (figures.cost_cents ?? 0) : figures[field];
  let busiest: (typeof summary.buckets)[number] | undefined;
  for (const bucket of summary.buckets) {
    if (value(bucket) > 0 && (busiest === undefined || value(bucket) > value(busiest))) {
      busiest = bucket;
    }
  }
  const most =
    busiest === undefined
      ? "none in any bucket"
      : `the most, ${text(busiest)}, in ${bucketLabel(busiest.bucket, per)}`;
  return `${title}: ${text(summary.totals)} in all, ${most}. The table below lists every ${per}.`;
}

/** A bucket's label as people read it: `2026-11-26 21:00 (+01:00)`, `2026-11-26`, `week of …`. */
export function bucketLabel(label: string, bucket: Bucket): string {
  if (bucket === "hour") return `${label.slice(0, 10)} ${label.slice(11, 16)} (${label.slice(19)})`;
  return bucket === "week" ? `week of ${label}` : label;
}

const utc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
const count = (n: number) => n.toLocaleString("en-US");
const minutes = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });
const dollars = (cents: number) =>
  (cents / 100).toLocaleString("en-US", {
    style: "currency",
    currency: "USD",
    minimumFractionDigits: 2,
    maximumFractionDigits: 4,
  });
