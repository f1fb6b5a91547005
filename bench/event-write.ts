/**
 * `node --import tsx bench/event-write.ts [sqlite] [postgres] [mysql]`: usage-event writes per
 * second through `EventBus.recordUsage`, the write path alone (no HTTP), on a fresh database of
 * each kind named (SQLite file and PostgreSQL by default; the servers as in
 * test/helpers/test-databases.ts). BENCH_SECONDS (5) sets the run, BENCH_WRITERS (50,1000) the
 * concurrent writers, each awaiting its write before the next; BENCH_FLUSH_MS the bus's flushMs
 * (its default, 5, otherwise); BENCH_SQLITE_SYNCHRONOUS (FULL/NORMAL) overrides that pragma. The
 * traffic is the widget's: 10 sites, most writes with a client id, one in ten a re-send of the
 * writer's previous one, one in five a `db_query` without. At the end every acknowledged event is
 * checked against the store (zero loss, one row per client id), or the run fails.
 */
import crypto from "node:crypto";
import pino from "pino";
import { EventBus, type UsageEventInput } from "../core/events/event-bus.ts";
import { keyRing } from "../core/security/secret-box.ts";
import { loadSettings } from "../core/settings.ts";
import { migrate, openDatabase } from "../core/store/database.ts";
import { Store } from "../core/store/store.ts";
import { createTestDatabase, databaseTargets } from "../test/helpers/test-databases.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const writerCounts = (process.env.BENCH_WRITERS ?? "50,1000").split(",").map(Number);
const flushMs = process.env.BENCH_FLUSH_MS;
const synchronous = process.env.BENCH_SQLITE_SYNCHRONOUS;
const SITES = 10;

interface Result {
  writers: number;
  perSecond: number;
  cpuMicrosPerEvent: number;
  acknowledged: number;
  stored: number;
}

async function run(store: Store, writers: number, tag: string): Promise<Result> {
  const bus = new EventBus(store, keyRing(crypto.randomBytes(32)), {
    logger: pino({ level: "silent" }),
    ...(flushMs === undefined ? {} : { flushMs: Number(flushMs) }),
  });
  /** Acknowledged ids by client key (site and client id); `null` key for writes without one. */
  const acknowledged = new Map<string, string>();
  const anonymous: string[] = [];
  let writes = 0;
  let mismatched = 0;
  const deadline = Date.now() + seconds * 1000;
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();

  async function writer(w: number): Promise<void> {
    const site_id = `${tag}-${w % SITES}`;
    for (let n = 0; Date.now() < deadline; n++) {
      const input: UsageEventInput =
        n % 5 === 0
          ? { site_id, session_id: `sess_${w}`, type: "db_query", metadata: { filters: 1 } }
          : {
              site_id,
              session_id: `sess_${w}`,
              type: "function_call",
              function_name: "search_database",
              metadata: { n },
              // One in ten re-sends the previous write's client id.
              client_event_id: `w${w}-${n % 10 === 9 ? n - 1 : n}`,
            };
      const event = await bus.recordUsage(input);
      writes++;
      if (input.client_event_id === undefined) {
        anonymous.push(event.id);
        continue;
      }
      const key = `${site_id}/${input.client_event_id}`;
      const first = acknowledged.get(key);
      if (first === undefined) acknowledged.set(key, event.id);
      else if (first !== event.id) mismatched++;
    }
  }

  await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  await bus.close();

  // Zero loss: every acknowledged id is stored, once, and nothing else is.
  const ids = new Set<string>();
  for (let s = 0; s < SITES; s++) {
    for (const row of await store.events.listUsage(`${tag}-${s}`, 10_000_000)) ids.add(row.id);
  }
  const expected = [...acknowledged.values(), ...anonymous];
  const missing = expected.filter((id) => !ids.has(id)).length;
  if (missing > 0 || mismatched > 0 || ids.size !== expected.length) {
    throw new Error(
      `${tag}: ${missing} acknowledged events missing, ${mismatched} re-sends answered another ` +
        `id, ${ids.size} stored for ${expected.length} distinct acknowledged`,
    );
  }
  return {
    writers,
    perSecond: writes / elapsed,
    cpuMicrosPerEvent: (used.user + used.system) / writes,
    acknowledged: writes,
    stored: ids.size,
  };
}

const names = process.argv.slice(2);
const targets = databaseTargets.filter((t) =>
  names.length === 0 ? t.client !== "mysql" : names.includes(t.client),
);
console.log("| Database | Writers | Events/s | CPU µs/event | Acknowledged | Stored |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
for (const target of targets) {
  const database = await createTestDatabase(target);
  if (database === undefined) throw new Error(`${target.label} is not reachable`);
  const store = new Store(openDatabase(loadSettings({ DATABASE_URL: database.url }).database));
  try {
    await migrate(store.db);
    let label = target.label;
    if (target.client === "sqlite") {
      if (synchronous !== undefined) await store.db.knex.raw(`pragma synchronous = ${synchronous}`);
      const [mode] = (await store.db.knex.raw("pragma synchronous")) as { synchronous: number }[];
      label += ` file, synchronous ${["OFF", "NORMAL", "FULL", "EXTRA"][mode!.synchronous]}`;
    }
    for (const writers of writerCounts) {
      const r = await run(store, writers, `bench-${writers}`);
      console.log(
        `| ${label} | ${r.writers} | ${Math.round(r.perSecond).toLocaleString("en")} | ` +
          `${r.cpuMicrosPerEvent.toFixed(1)} | ${r.acknowledged} | ${r.stored} |`,
      );
    }
  } finally {
    await store.close();
    await database.drop();
  }
}
