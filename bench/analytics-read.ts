/**
 * The measured reads of the analytics benchmark (analytics.ts): `GET /v1/:siteId/analytics/
 * summary` through the service over HTTP, one request at a time on one keep-alive connection, as
 * a dashboard asks. For each time zone the busy site's `timezone` is changed first through
 * `PATCH /v1/sites/:id` (the service's own write, which its site cache follows); then for each
 * query a warm-up and the measured requests, each timed from sending to the last byte of the
 * answer. An answer is right when it is a 200 whose summary is in that zone and has buckets; any
 * other answer is an error, and a series with one is not a result.
 */
import { Agent, request } from "undici";
import { percentile, round } from "./report.ts";

/** The queries measured, the first the one with the goal. */
export const SUMMARY_QUERIES = [
  "period=year&bucket=day",
  "period=month&bucket=day",
  "period=day&bucket=hour",
] as const;
export const SUMMARY_ZONES = ["UTC", "Asia/Kathmandu"] as const;

export interface ReadPlan {
  origin: string;
  siteId: string;
  /** One `analytics:read` key per series (zone × query), in that order. */
  readKeys: string[];
  writeKey: string;
  warmup: number;
  requests: number;
}

export interface SeriesResult {
  zone: string;
  query: string;
  requests: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
  max_ms: number;
  /** Buckets and totals of the last answer: what the series read. */
  buckets: number;
  answer_bytes: number;
  totals: Record<string, number>;
  errors: number;
  /** The first wrong answer, for the report. */
  first_error?: string;
}

interface Summary {
  timezone: string;
  totals: Record<string, number>;
  buckets: unknown[];
}

/** Every series, zone by zone. */
export async function measureSummaries(plan: ReadPlan): Promise<SeriesResult[]> {
  const agent = new Agent({ connections: 1 });
  try {
    const results: SeriesResult[] = [];
    for (const zone of SUMMARY_ZONES) {
      await setZone(agent, plan, zone);
      for (const query of SUMMARY_QUERIES) {
        const key = plan.readKeys[results.length];
        if (key === undefined) throw new Error("a read key per series is needed");
        results.push(await measureSeries(agent, plan, key, zone, query));
      }
    }
    return results;
  } finally {
    await agent.close();
  }
}

async function setZone(agent: Agent, plan: ReadPlan, zone: string): Promise<void> {
  const answer = await request(`${plan.origin}/v1/sites/${plan.siteId}`, {
    dispatcher: agent,
    method: "PATCH",
    headers: { authorization: `Bearer ${plan.writeKey}`, "content-type": "application/json" },
    body: JSON.stringify({ timezone: zone }),
  });
  const text = await answer.body.text();
  if (answer.statusCode !== 200) {
    throw new Error(`PATCH timezone ${zone}: ${answer.statusCode} ${text.slice(0, 300)}`);
  }
}

async function measureSeries(
  agent: Agent,
  plan: ReadPlan,
  key: string,
  zone: string,
  query: string,
): Promise<SeriesResult> {
  const url = `${plan.origin}/v1/${plan.siteId}/analytics/summary?${query}`;
  const headers = { authorization: `Bearer ${key}` };
  const times: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let last: { summary: Summary; bytes: number } | undefined;
  for (let n = 0; n < plan.warmup + plan.requests; n++) {
    const from = performance.now();
    const answer = await request(url, { dispatcher: agent, headers });
    const text = await answer.body.text();
    const ms = performance.now() - from;
    if (n >= plan.warmup) times.push(ms);
    const summary = answer.statusCode === 200 ? summaryOf(text) : undefined;
    if (summary === undefined || summary.timezone !== zone || summary.buckets.length === 0) {
      errors++;
      firstError ??= `${answer.statusCode} ${text.slice(0, 300)}`;
    } else {
      last = { summary, bytes: Buffer.byteLength(text) };
    }
  }
  return {
    zone,
    query,
    requests: times.length,
    p50_ms: round(percentile(times, 50), 2),
    p99_ms: round(percentile(times, 99), 2),
    mean_ms: round(times.reduce((sum, ms) => sum + ms, 0) / times.length, 2),
    max_ms: round(Math.max(...times), 2),
    buckets: last?.summary.buckets.length ?? 0,
    answer_bytes: last?.bytes ?? 0,
    totals: last?.summary.totals ?? {},
    errors,
    ...(firstError === undefined ? {} : { first_error: firstError }),
  };
}

function summaryOf(text: string): Summary | undefined {
  try {
    return (JSON.parse(text) as { data?: Summary }).data;
  } catch {
    return undefined;
  }
}
