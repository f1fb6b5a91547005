/**
 * The issue's Done-when, checked after each fault against the database itself (knex on the
 * cluster's PostgreSQL), the webhook receiver, the crawl site's request log and the streams'
 * subscribers. Each check answers the problems it found, as sentences, so an assertion on an
 * empty list says exactly what broke.
 */
import knexFactory, { type Knex } from "knex";
import { pause } from "./client.ts";
import type { World } from "./fixtures.ts";
import type { Records, Sent } from "./mixed-workload.ts";
import { whereRead, type StreamSubscriber } from "./streams.ts";

/** Runs `work` on a connection of its own, made after whatever restart came before. */
export async function withDb<T>(world: World, work: (db: Knex) => Promise<T>): Promise<T> {
  const db = knexFactory({
    client: "pg",
    connection: world.database.url,
    pool: { min: 0, max: 2 },
  });
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

const probeOf = (json: string | null): string | undefined => {
  try {
    const value = (JSON.parse(json ?? "{}") as Record<string, unknown>).probe;
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
};

/** Per write sent: stored at most once, and once, under the id answered, when acknowledged. */
function storedOnce(kind: string, sent: Iterable<Sent>, rows: Map<string, string[]>): string[] {
  const problems: string[] = [];
  for (const write of sent) {
    const ids = rows.get(write.probe) ?? [];
    if (ids.length > 1) problems.push(`${kind} ${write.probe} stored ${ids.length} times: ${ids}`);
    if (write.acked.size > 1)
      problems.push(`${kind} ${write.probe} answered as ${[...write.acked]}`);
    const [acked] = write.acked;
    if (acked !== undefined && !ids.includes(acked)) {
      problems.push(
        `${kind} ${write.probe} acknowledged as ${acked} (${write.phase}), stored as [${ids}]`,
      );
    }
  }
  return problems;
}

export async function usageEventsStoredOnce(world: World, records: Records): Promise<string[]> {
  return withDb(world, async (db) => {
    const rows = await db("usage_events")
      .where({ site_id: world.shop.siteId })
      .select<{ id: string; type: string; session_id: string; metadata: string }[]>(
        "id",
        "type",
        "session_id",
        "metadata",
      );
    const byProbe = new Map<string, string[]>();
    const perSession = new Map<string, number>();
    for (const row of rows) {
      const probe = probeOf(row.metadata);
      if (probe !== undefined) byProbe.set(probe, [...(byProbe.get(probe) ?? []), row.id]);
      if (row.type === "session_start" || row.type === "session_end") {
        const key = `${row.type} of ${row.session_id}`;
        perSession.set(key, (perSession.get(key) ?? 0) + 1);
      }
    }
    const problems = storedOnce("usage event", records.events.values(), byProbe);
    for (const [key, n] of perSession) if (n > 1) problems.push(`${key} stored ${n} times`);
    const acked = [...records.events.values()].filter((e) => e.acked.size > 0).length;
    if (acked === 0) problems.push("no usage event was acknowledged at all");
    return problems;
  });
}

/**
 * Leads: stored once per client id, and each stored lead delivered to the receiver, exactly once
 * once deduplicated by `webhook-id`; the outbox holds one delivery per event and endpoint.
 */
export async function leadsDeliveredOnce(
  world: World,
  records: Records,
  waitMs: number,
): Promise<string[]> {
  return withDb(world, async (db) => {
    const rows = await db("leads")
      .where({ site_id: world.shop.siteId })
      .select<{ id: string; fields: string }[]>("id", "fields");
    const byProbe = new Map<string, string[]>();
    for (const row of rows) {
      const probe = probeOf(row.fields);
      if (probe !== undefined) byProbe.set(probe, [...(byProbe.get(probe) ?? []), row.id]);
    }
    const problems = storedOnce("lead", records.leads.values(), byProbe);
    if (![...records.leads.values()].some((l) => l.acked.size > 0))
      problems.push("no lead was acknowledged");
    const delivered = () => {
      const hooks = new Map<string, Set<string>>();
      for (const request of world.received()) {
        const body = JSON.parse(request.body) as { type: string; data: { lead: { id: string } } };
        if (body.type !== "lead.captured") continue;
        const id = body.data.lead.id;
        hooks.set(id, (hooks.get(id) ?? new Set()).add(String(request.headers["webhook-id"])));
      }
      return hooks;
    };
    const deadline = Date.now() + waitMs;
    while (rows.some((r) => !delivered().has(r.id)) && Date.now() < deadline) await pause(250);
    const hooks = delivered();
    for (const row of rows) {
      const ids = hooks.get(row.id);
      if (ids === undefined)
        problems.push(`lead ${row.id} stored, never delivered within ${waitMs} ms`);
      else if (ids.size !== 1)
        problems.push(`lead ${row.id} delivered as ${ids.size} events: ${[...ids]}`);
    }
    const doubled = await db("webhook_deliveries")
      .groupBy("event_id", "endpoint_id")
      .havingRaw("count(*) > 1")
      .select("event_id");
    for (const row of doubled)
      problems.push(`outbox: event ${row.event_id} has several deliveries to one endpoint`);
    const undelivered = await db("service_events as e")
      .leftJoin("webhook_deliveries as d", "d.event_id", "e.id")
      .where({ "e.type": "lead.captured" })
      .whereNull("d.id")
      .select("e.id");
    for (const row of undelivered) problems.push(`outbox: lead.captured ${row.id} has no delivery`);
    return problems;
  });
}

const CRAWL_SETTLE_MS = 100_000;

/**
 * Jobs run once: each crawl of the shop fetched its robots.txt once (a crawl run twice fetches it
 * twice), none stays queued; each visitor-data export ran once (one attempt, one document); each
 * repeating job (and each site's nightly crawl) is one row, whatever the instances' starts.
 */
export async function jobsRanOnce(world: World, records: Records): Promise<string[]> {
  return withDb(world, async (db) => {
    const problems: string[] = [];
    const robots = () => world.crawlSite.requested.filter((p) => p === "/robots.txt").length;
    const crawls = () =>
      db("crawls")
        .where({ site_id: world.shop.siteId })
        .select<{ id: string; status: string; started_at: string | null }[]>(
          "id",
          "status",
          "started_at",
        );
    let rows = await crawls();
    // A crawl whose job a killed instance held is dispatched again a minute later (then the
    // dispatch job's 15 s, then the crawl): long enough for that, not for a crawl lost.
    const settle = Date.now() + CRAWL_SETTLE_MS;
    while (
      Date.now() < settle &&
      (rows.some((c) => c.status === "queued") ||
        rows.filter((c) => c.started_at !== null).length !== robots())
    ) {
      await pause(250);
      rows = await crawls();
    }
    const started = rows.filter((c) => c.started_at !== null).length;
    const finished = rows.filter((c) => c.status === "done" || c.status === "failed").length;
    if (robots() > started)
      problems.push(`crawls: robots.txt fetched ${robots()} times by ${started} crawls started`);
    if (finished > robots())
      problems.push(`crawls: ${finished} finished, robots.txt fetched ${robots()} times`);
    for (const c of rows)
      if (c.status === "queued")
        problems.push(`crawl ${c.id} still queued after ${CRAWL_SETTLE_MS / 1000} s`);
    for (const refresh of records.refreshes) {
      if (!rows.some((c) => c.id === refresh.crawlId))
        problems.push(`refresh answered ${refresh.crawlId}, no such crawl`);
    }
    const ids = [...records.userDataRequests];
    type Request = { id: string; status: string; attempts: number };
    let requests: Request[] = [];
    const due = Date.now() + 20_000;
    do {
      requests =
        ids.length === 0
          ? []
          : await db("user_data_requests").whereIn("id", ids).select("id", "status", "attempts");
      if (requests.every((r) => r.status === "done")) break;
      await pause(250);
    } while (Date.now() < due);
    const exports =
      ids.length === 0
        ? []
        : await db("user_data_exports").whereIn("request_id", ids).pluck("request_id");
    for (const id of ids) {
      const request = requests.find((r) => r.id === id);
      if (request === undefined) problems.push(`user-data ${id} acknowledged, not stored`);
      else if (request.status !== "done")
        problems.push(`user-data ${id} still ${request.status} after 20 s`);
      else if (Number(request.attempts) !== 1)
        problems.push(`user-data ${id} ran ${request.attempts} times`);
      const documents = exports.filter((r: string) => r === id).length;
      if (request?.status === "done" && documents !== 1)
        problems.push(`user-data ${id} has ${documents} documents`);
    }
    const repeated = await db("agenda_jobs")
      .where({ type: "single" })
      .groupByRaw("name, data::text")
      .havingRaw("count(*) > 1")
      .select(db.raw("name, data::text as data, count(*) as n"));
    for (const row of repeated) problems.push(`job ${row.name} ${row.data} is ${row.n} rows`);
    const names = await db("agenda_jobs").where({ type: "single" }).distinct().pluck("name");
    for (const name of ["widget.sweep", "crawls.dispatch", "user-data.sweep", "webhooks.prune"]) {
      if (!names.includes(name)) problems.push(`repeating job ${name} has no row`);
    }
    return problems;
  });
}

/** Site changes in `phase` not on some live instance within 5 s (and that there were some). */
export function changesShown(records: Records, phase: string): string[] {
  const changes = records.changes.filter((c) => c.phase === phase);
  const problems: string[] = [];
  for (const kind of ["api", "sync"] as const) {
    if (!changes.some((c) => c.kind === kind))
      problems.push(`no ${kind} change was made in ${phase}`);
  }
  for (const change of changes) {
    for (const [instance, ms] of Object.entries(change.shownAfter)) {
      if (ms > 5_000)
        problems.push(
          `${change.kind} change to ${change.siteId} v${change.version} on ${instance} after ${ms} ms`,
        );
    }
  }
  return problems;
}

/**
 * Every usage event of the shop stored, read by every subscriber (they began before any): what
 * each missed, and what each read twice.
 */
export async function streamsComplete(
  world: World,
  records: Records,
  subscribers: StreamSubscriber[],
): Promise<{ missed: string[]; doubled: string[] }> {
  type Row = { id: string; type: string; metadata: string | null; created_at: string };
  const stored = await withDb(world, (db) =>
    db("usage_events")
      .where({ site_id: world.shop.siteId })
      .select<Row[]>("id", "type", "metadata", "created_at"),
  );
  const missing = (s: StreamSubscriber) => {
    const read = new Set(s.ids());
    return stored.filter((row) => !read.has(row.id));
  };
  const deadline = Date.now() + 15_000;
  while (subscribers.some((s) => missing(s).length > 0) && Date.now() < deadline) await pause(200);
  const problems: string[] = [];
  const doubled: string[] = [];
  if (stored.length === 0) problems.push("no usage event stored for the streams to carry");
  for (const s of subscribers) {
    const lost = missing(s);
    const ids = s.ids();
    const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
    const via = s.streams.map((x) => x.instance).join(">");
    const where = `${s.name} (${s.reconnections} reconnections, via ${via})`;
    if (lost.length > 0) {
      const row = lost[0]!;
      const sent = records.events.get(probeOf(row.metadata) ?? "");
      const skippedBy = s.streams
        .filter((x) => x.lastEventId !== undefined && x.lastEventId > row.id)
        .map((x) => `${x.instance} from ${x.lastEventId}`);
      problems.push(
        `${where} missed ${lost.length} of ${stored.length} events, e.g. ${row.id} (${row.type}, ` +
          `stored at ${new Date(Number(row.created_at)).toISOString()}, its write sent ` +
          `${sent === undefined ? "by the service" : `${sent.attempts} times`}; replays from a ` +
          `later Last-Event-ID: ${skippedBy.join(", ") || "none"})`,
      );
    }
    if (twice.length > 0) {
      doubled.push(
        `${where} read ${twice.length} events twice, e.g. ${twice[0]}: ${whereRead(s, twice[0]!)}`,
      );
    }
  }
  return { missed: problems, doubled };
}
