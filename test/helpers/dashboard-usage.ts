/**
 * For the usage page's tests: a member signed up (their cookie and workspace), a site made
 * through the API with a key the cookie made, visits to it whose usage events go through the
 * signed widget API, and what a summary must say of the events as the API lists them, worked out
 * here from the raw events (for a site in a zone of fixed offset).
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import type { UsageEvent } from "../../core/events/event-bus.ts";
import { SessionService } from "../../core/widget/session-service.ts";
import type { Member } from "./session-cookie.ts";
import type { TestService } from "./test-service.ts";
import { signedPost, type WidgetSession } from "./widget-session.ts";

const SAME = { "Sec-Fetch-Site": "same-origin" };
const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;

export { PASSWORD, signUp, type Member } from "./session-cookie.ts";

export interface UsageSite extends Pick<WidgetSession, "siteId" | "workspaceId" | "origin"> {
  /** A key of the site's workspace (made with the member's cookie), to read it through the API. */
  key: string;
}

/** A key made with the member's cookie, then a site made with it through the API. */
export async function siteOf(
  service: TestService,
  member: Member,
  site: { site_id: string; business_name: string; timezone: string },
): Promise<UsageSite> {
  const made = await request(service.server)
    .post(`/v1/api-keys?workspace_id=${member.workspaceId}`)
    .set({ Cookie: member.cookie, ...SAME })
    .send({ name: "usage", scopes: ["sites:write", "sites:read", "analytics:read"], mode: "live" })
    .expect(201);
  const key = made.body.data.value as string;
  const domain = `${site.site_id}.example`;
  const created = await request(service.server)
    .post("/v1/sites")
    .set("Authorization", `Bearer ${key}`)
    .send({ ...site, business_description: "", domain });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return {
    siteId: site.site_id,
    workspaceId: member.workspaceId,
    origin: `https://${domain}`,
    key,
  };
}

/** A visitor's session on the site, opened `agoMs` before now (so its end has a duration). */
export async function openSession(
  service: TestService,
  site: UsageSite,
  agoMs: number,
): Promise<WidgetSession> {
  const earlier = new SessionService(service.store, service.ring, () => Date.now() - agoMs);
  const { session, signingSecret } = await earlier.create(
    { site_id: site.siteId, workspace_id: site.workspaceId },
    { ip: `203.0.113.${crypto.randomInt(1, 255)}`, userAgent: "test" },
  );
  return { ...site, session_id: session.id, signing_secret: signingSecret };
}

/** Records one usage event through the signed widget endpoint; its id. */
export async function record(
  service: TestService,
  session: WidgetSession,
  event: { type: string; function_name?: string },
): Promise<string> {
  // Each call its own client id: the same bytes twice in a session are one retried write.
  const metadata = { client_event_id: crypto.randomUUID() };
  const res = await signedPost(service, session, "/analytics/event", { ...event, metadata });
  expect(res.status, JSON.stringify(res.body)).to.equal(202);
  return res.body.data.id as string;
}

/**
 * A whole visit: a session opened `agoMs` ago, its start, the function calls named, the
 * queries, its end, and the end's cost when given (as the voice provider's confirmation adds it).
 */
export async function visit(
  service: TestService,
  site: UsageSite,
  visit: { agoMs: number; functions: string[]; queries?: number; costCents?: number },
): Promise<void> {
  const session = await openSession(service, site, visit.agoMs);
  await record(service, session, { type: "session_start" });
  for (const name of visit.functions) {
    await record(service, session, { type: "function_call", function_name: name });
  }
  for (let i = 0; i < (visit.queries ?? 0); i += 1) {
    await record(service, session, { type: "db_query" });
  }
  const end = await record(service, session, { type: "session_end" });
  if (visit.costCents !== undefined) {
    expect((await service.events.addSessionCost(end, visit.costCents)).added).to.equal(true);
  }
}

/** The site's events as `GET /v1/:siteId/analytics/events` lists them (up to 1,000). */
export async function listedEvents(service: TestService, site: UsageSite): Promise<UsageEvent[]> {
  const res = await request(service.server)
    .get(`/v1/${site.siteId}/analytics/events?limit=1000`)
    .set("Authorization", `Bearer ${site.key}`)
    .expect(200);
  return res.body.data as UsageEvent[];
}

export interface Figures {
  sessions: number;
  minutes: number;
  function_calls: number;
  db_queries: number;
  cost_cents?: number;
}

/**
 * What a summary says of `events` in a zone `offsetMinutes` from UTC (no daylight saving): its
 * totals, the buckets with anything in them by label, in order, and the top functions.
 */
export function expectedSummary(
  events: UsageEvent[],
  bucket: "hour" | "day" | "week",
  offsetMinutes: number,
) {
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  const labelOf = (iso: string) => {
    const local = Date.parse(iso) + offsetMinutes * 60_000;
    if (bucket === "hour") {
      return `${new Date(local - (local % HOUR)).toISOString().slice(0, 19)}${offset}`;
    }
    const day = local - (local % DAY);
    const back = bucket === "week" ? ((new Date(day).getUTCDay() + 6) % 7) * DAY : 0;
    return new Date(day - back).toISOString().slice(0, 10);
  };
  type Sum = {
    sessions: number;
    seconds: number;
    calls: number;
    queries: number;
    cost: number;
    costed: number;
  };
  const sums = new Map<string, Sum>();
  const total: Sum = { sessions: 0, seconds: 0, calls: 0, queries: 0, cost: 0, costed: 0 };
  const functions = new Map<string, number>();
  for (const event of [...events].sort((a, b) => a.created_at.localeCompare(b.created_at))) {
    const label = labelOf(event.created_at);
    if (!sums.has(label))
      sums.set(label, { sessions: 0, seconds: 0, calls: 0, queries: 0, cost: 0, costed: 0 });
    for (const sum of [sums.get(label)!, total]) {
      if (event.type === "session_start") sum.sessions += 1;
      if (event.type === "session_end") sum.seconds += event.duration_seconds!;
      if (event.type === "function_call") sum.calls += 1;
      if (event.type === "db_query") sum.queries += 1;
      if (event.cost_cents !== undefined) {
        sum.cost += event.cost_cents;
        sum.costed += 1;
      }
    }
    if (event.type === "function_call") {
      functions.set(event.function_name!, (functions.get(event.function_name!) ?? 0) + 1);
    }
  }
  const figures = (sum: Sum): Figures => ({
    sessions: sum.sessions,
    minutes: Math.round((sum.seconds / 60) * 100) / 100,
    function_calls: sum.calls,
    db_queries: sum.queries,
    ...(sum.costed === 0 ? {} : { cost_cents: Math.round(sum.cost * 100) / 100 }),
  });
  return {
    totals: figures(total),
    buckets: [...sums].map(([label, sum]) => ({ bucket: label, ...figures(sum) })),
    top_functions: [...functions]
      .map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)),
  };
}
