/**
 * `GET /v1/:siteId/analytics/summary` on every database and in four time zones (UTC,
 * America/New_York across both DST changes, Asia/Kolkata at +5:30, Asia/Kathmandu at +5:45):
 * each period and bucket compared with a plain recomputation from the raw events written, with
 * the local buckets worked out here by Intl, hour by hour, independently of the service's code.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import type { UsageEventRow } from "../core/store/repos/events-repo.ts";
import pino from "pino";
import { keepAllClosedDays } from "../core/analytics/day-rollup-job.ts";
import { usageRow } from "./helpers/usage-rows.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const QUARTER = 15 * 60_000;
const silent = pino({ level: "silent" });
const DAY = 24 * 60 * 60_000;
const ZONES = ["UTC", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu"];
const TYPES = ["session_start", "session_end", "function_call", "db_query", "image_description"];
const FUNCTIONS = ["search_database", "scroll_to", "submit_lead"];

interface Figures {
  sessions: number;
  minutes: number;
  function_calls: number;
  db_queries: number;
  cost_cents?: number;
}

/** Events over the last 400 days, denser around the New York DST changes of 2026. */
function eventsFor(siteId: string, now: number): UsageEventRow[] {
  const instants: number[] = [];
  for (let i = 0; i < 2_000; i += 1) instants.push(now - ((i * 7_919_993) % (400 * DAY)));
  for (const change of [Date.UTC(2026, 2, 8, 7), Date.UTC(2026, 10, 1, 6)]) {
    for (let i = -200; i < 200; i += 1) instants.push(change + i * 17 * 60_000 + 11_000);
  }
  return instants.map((at, i) => {
    const type = TYPES[i % TYPES.length]!;
    return usageRow(siteId, {
      type,
      function_name: type === "function_call" ? FUNCTIONS[i % 3]! : null,
      duration_seconds: type === "session_end" ? 7 + (i % 23) * 13 : null,
      cost_cents: type === "session_end" && i % 4 === 1 ? (i % 9) + 0.25 : null,
      created_at: at,
    });
  });
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** The local label of an instant, from Intl's parts of the zone's wall clock. */
function labelOf(ms: number, zone: string, bucket: string): string {
  let format = formats.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      weekday: "short",
      timeZoneName: "longOffset",
    });
    formats.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(ms).map((part) => [part.type, part.value]));
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  if (bucket === "day") return date;
  if (bucket === "week") {
    const back = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].indexOf(parts.weekday!);
    return new Date(Date.parse(`${date}T00:00:00Z`) - back * DAY).toISOString().slice(0, 10);
  }
  const offset = parts.timeZoneName === "GMT" ? "+00:00" : parts.timeZoneName!.slice(3);
  return `${date}T${parts.hour}:00:00${offset}`;
}

/** What the summary must say of `events` over the window it answered for. */
function expected(
  events: UsageEventRow[],
  since: number,
  until: number,
  zone: string,
  bucket: string,
) {
  const labels: string[] = [];
  for (let at = since; at < until; at += QUARTER) {
    const label = labelOf(at, zone, bucket);
    if (labels.at(-1) !== label) labels.push(label);
  }
  const tallies = new Map(labels.map((label) => [label, tally()]));
  const total = tally();
  const functions = new Map<string, number>();
  for (const event of events) {
    if (event.created_at < since || event.created_at >= until) continue;
    for (const sum of [tallies.get(labelOf(event.created_at, zone, bucket))!, total]) {
      if (event.type === "session_start") sum.sessions += 1;
      if (event.type === "session_end") sum.seconds += event.duration_seconds!;
      if (event.type === "function_call") sum.function_calls += 1;
      if (event.type === "db_query") sum.db_queries += 1;
      if (event.cost_cents !== null) {
        sum.cost += event.cost_cents;
        sum.costed += 1;
      }
    }
    if (event.type === "function_call") {
      functions.set(event.function_name!, (functions.get(event.function_name!) ?? 0) + 1);
    }
  }
  return {
    totals: figures(total),
    buckets: labels.map((label) => ({ bucket: label, ...figures(tallies.get(label)!) })),
    top_functions: [...functions]
      .map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)),
  };
}

const tally = () => ({
  sessions: 0,
  seconds: 0,
  function_calls: 0,
  db_queries: 0,
  cost: 0,
  costed: 0,
});

function figures(sum: ReturnType<typeof tally>): Figures {
  return {
    sessions: sum.sessions,
    minutes: Math.round((sum.seconds / 60) * 100) / 100,
    function_calls: sum.function_calls,
    db_queries: sum.db_queries,
    ...(sum.costed === 0 ? {} : { cost_cents: Math.round(sum.cost * 100) / 100 }),
  };
}

for (const target of databaseTargets) {
  describe(`analytics summary on ${target.label}`, function () {
    this.timeout(120_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let key: string;
    let workspaceId: string;
    const sites = new Map<string, { siteId: string; events: UsageEventRow[] }>();

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
      workspaceId = await service.workspace();
      key = await service.key(workspaceId, { scopes: ["analytics:read"] });
      for (const zone of ZONES) sites.set(zone, await siteWithEvents(zone));
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    const summary = (siteId: string, query: string) =>
      request(service.server)
        .get(`/v1/${siteId}/analytics/summary?${query}`)
        .set("Authorization", `Bearer ${key}`);

    for (const zone of ZONES) {
      it(`matches a recomputation for every period and bucket in ${zone}`, async () => {
        const { siteId, events } = sites.get(zone)!;
        const queries = ["day", "week", "month", "quarter", "year"].flatMap((period) =>
          ["hour", "day", "week"].map((bucket) => `period=${period}&bucket=${bucket}`),
        );
        // Both DST changes of New York, hour by hour: a day of 23 hours and one of 25.
        queries.push(
          "period=custom&bucket=hour&since=2026-03-07&until=2026-03-10",
          "period=custom&bucket=hour&since=2026-10-31T00:00:00Z&until=2026-11-03T00:00:00Z",
          "period=custom&bucket=day&since=2026-03-01&until=2026-11-15",
        );
        for (const query of queries) {
          const res = await summary(siteId, query).expect(200);
          const { period, timezone, ...answer } = res.body.data;
          expect(timezone).to.equal(zone);
          const since = Date.parse(period.since);
          const until = Date.parse(period.until);
          expect(since % QUARTER, query).to.equal(0);
          const bucket = /bucket=(\w+)/.exec(query)![1]!;
          expect(answer, `${zone} ${query}`).to.deep.equal(
            expected(events, since, until, zone, bucket),
          );
        }
      });
    }

    it("lists a day of 23 hours and a day of 25 in New York", async () => {
      const { siteId } = sites.get("America/New_York")!;
      const spring = await summary(
        siteId,
        "period=custom&bucket=hour&since=2026-03-08T05:00:00Z&until=2026-03-09T04:00:00Z",
      ).expect(200);
      expect(spring.body.data.buckets).to.have.length(23);
      const autumn = await summary(
        siteId,
        "period=custom&bucket=hour&since=2026-11-01T04:00:00Z&until=2026-11-02T05:00:00Z",
      ).expect(200);
      const labels = autumn.body.data.buckets.map((b: { bucket: string }) => b.bucket);
      expect(labels).to.have.length(25);
      expect(labels).to.include.members(["2026-11-01T01:00:00-04:00", "2026-11-01T01:00:00-05:00"]);
    });

    /** A new site in `zone` with the test's events; its id and events. */
    const siteWithEvents = async (zone: string) => {
      const siteId = `sum-${crypto.randomBytes(4).toString("hex")}`;
      await service.sites.create(operatorPrincipal(workspaceId, "test"), {
        site_id: siteId,
        business_name: zone,
        business_description: "",
        domain: `${siteId}.example`,
        timezone: zone,
      });
      const events = eventsFor(siteId, Date.now());
      for (let i = 0; i < events.length; i += 500) {
        await service.store.events.storeUsage(events.slice(i, i + 500));
      }
      return { siteId, events };
    };
    const dayRows = (siteId: string) =>
      service.store.db.knex("usage_day_rollups").where({ site_id: siteId });
    const yearByDay = async (siteId: string, zone: string, events: UsageEventRow[]) => {
      const res = await summary(siteId, "period=year&bucket=day").expect(200);
      const { period, timezone, ...answer } = res.body.data;
      expect(timezone).to.equal(zone);
      const since = Date.parse(period.since);
      const until = Date.parse(period.until);
      return { answer, expected: expected(events, since, until, zone, "day") };
    };

    it("keeps a year's closed days as day rows and answers from them afterwards", async () => {
      const { siteId, events } = await siteWithEvents("Asia/Kathmandu");
      const first = await yearByDay(siteId, "Asia/Kathmandu", events);
      expect(first.answer).to.deep.equal(first.expected);
      // A marker per closed local day (the year's first and last days are partial or open).
      const markers = await dayRows(siteId).where({ type: "" }).count({ n: "*" });
      expect(Number(markers[0]!.n)).to.be.within(362, 365);
      // Changed behind the service's back, a kept day shows: summaries read the day rows.
      const [kept] = await dayRows(siteId).where({ type: "session_start" }).orderBy("day_start");
      await dayRows(siteId)
        .where({ type: "session_start", day_start: kept.day_start })
        .update({ events: Number(kept.events) + 1000 });
      const second = await yearByDay(siteId, "Asia/Kathmandu", events);
      expect(second.answer.totals.sessions).to.equal(first.answer.totals.sessions + 1000);
    });

    it("shows a cost added later to a session of a kept day", async () => {
      const { siteId, events } = await siteWithEvents("America/New_York");
      const first = await yearByDay(siteId, "America/New_York", events);
      expect(first.answer).to.deep.equal(first.expected);
      const ended = events.find(
        (event) =>
          event.type === "session_end" &&
          event.cost_cents === null &&
          event.created_at < Date.now() - 100 * DAY,
      )!;
      expect((await service.events.addSessionCost(ended.id, 42.5)).added).to.equal(true);
      const costed = events.map((event) =>
        event.id === ended.id ? { ...event, cost_cents: 42.5 } : event,
      );
      const after = await yearByDay(siteId, "America/New_York", costed);
      expect(after.answer).to.deep.equal(after.expected);
      expect(after.answer.totals.cost_cents).to.not.equal(first.answer.totals.cost_cents);
    });

    it("keeps every site's closed days by the hourly job, once", async () => {
      const { siteId, events } = await siteWithEvents("Asia/Kolkata");
      const parts = { store: service.store, analytics: service.analytics, logger: silent };
      expect(await keepAllClosedDays(parts)).to.be.at.least(362);
      const markers = async () =>
        Number((await dayRows(siteId).where({ type: "" }).count({ n: "*" }))[0]!.n);
      const kept = await markers();
      expect(kept).to.be.within(362, 365);
      expect(await service.analytics.keepClosedDays(siteId, "Asia/Kolkata")).to.equal(0);
      expect(await markers()).to.equal(kept);
      const year = await yearByDay(siteId, "Asia/Kolkata", events);
      expect(year.answer).to.deep.equal(year.expected);
    });

    it("answers in a site's new time zone once it changes, its days kept anew", async () => {
      const { siteId, events } = await siteWithEvents("UTC");
      const inUtc = await yearByDay(siteId, "UTC", events);
      expect(inUtc.answer).to.deep.equal(inUtc.expected);
      await service.sites.patch(operatorPrincipal(workspaceId, "test"), siteId, {
        timezone: "Asia/Kolkata",
      });
      const inKolkata = await yearByDay(siteId, "Asia/Kolkata", events);
      expect(inKolkata.answer).to.deep.equal(inKolkata.expected);
      expect(inKolkata.answer.buckets).to.not.deep.equal(inUtc.answer.buckets);
    });

    it("refuses bad parameters with 400 invalid_params naming them", async () => {
      const { siteId } = sites.get("UTC")!;
      const cases: Array<[string, string]> = [
        ["period=fortnight", "period"],
        ["bucket=minute", "bucket"],
        ["period=custom&since=2026-01-01", "until"],
        ["period=custom&until=2026-01-01", "since"],
        ["period=month&since=2026-01-01", "since"],
        ["period=custom&since=2026-02-01&until=2026-01-01", "since"],
        ["period=custom&since=2025-01-01&until=2026-06-01", "until"],
        ["period=custom&since=2026-13-01&until=2026-12-01", "since"],
        ["group_by=type", "group_by"],
      ];
      for (const [query, field] of cases) {
        const res = await summary(siteId, query).expect(400);
        expect(res.body.error.code, query).to.equal("invalid_params");
        expect(res.body.error.details.field, query).to.equal(field);
      }
      const foreign = await request(service.server)
        .get(`/v1/${siteId}/analytics/summary`)
        .set("Authorization", `Bearer ${await service.key(await service.workspace())}`)
        .expect(404);
      expect(foreign.body.error.code).to.equal("site_not_found");
    });
  });
}
