/**
 * The usage rollups on every database: written in the transaction that stores a batch of events,
 * equal at all times to a plain recomputation from the raw events (a repeated client id counted
 * once, costs summed with how many had one), and filled by the migration from the events stored
 * before it.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import { migrate, openDatabase } from "../core/store/database.ts";
import { migrationSource } from "../core/store/migrations/index.ts";
import { newId } from "../core/store/ids.ts";
import type { UsageEventRow } from "../core/store/repos/events-repo.ts";
import { ROLLUPS_TABLE, type RollupRow } from "../core/store/repos/usage-rollups.ts";
import { Store } from "../core/store/store.ts";
import { loadSettings } from "../core/settings.ts";
import { usageRow } from "./helpers/usage-rows.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";

const QUARTER = 15 * 60_000;
const TYPES = ["session_start", "function_call", "db_query", "session_end"] as const;

/** `count` events of `siteId` over about six hours before `end`, some with client ids. */
function events(siteId: string, count: number, end: number, clientIds = false): UsageEventRow[] {
  return Array.from({ length: count }, (_, i) => {
    const type = TYPES[i % TYPES.length]!;
    return usageRow(siteId, {
      type,
      function_name:
        type === "function_call" ? (i % 3 === 0 ? "scroll_to" : "search_database") : null,
      duration_seconds: type === "session_end" ? (i % 7) * 30 + 1 : null,
      cost_cents: type === "session_end" && i % 2 === 0 ? i / 10 : null,
      // Every fifth event repeats the client id of the one before it.
      client_event_id: clientIds ? `c-${i % 5 === 4 ? i - 1 : i}` : null,
      created_at: end - ((i * 7919) % (6 * 60 * 60_000)),
    });
  });
}

/** The rollups as a plain recomputation from the stored raw events gives them. */
async function recomputed(store: Store, siteId: string): Promise<RollupRow[]> {
  const rows = await store.db.knex<UsageEventRow>("usage_events").where({ site_id: siteId });
  const sums = new Map<string, RollupRow>();
  for (const row of rows) {
    const at = Number(row.created_at);
    const bucket = at - (at % QUARTER);
    const key = [bucket, row.type, row.function_name ?? ""].join("|");
    const sum = sums.get(key) ?? {
      site_id: siteId,
      bucket_start: bucket,
      type: row.type,
      function_name: row.function_name ?? "",
      events: 0,
      duration_seconds: 0,
      cost_cents: 0,
      costed: 0,
    };
    sum.events += 1;
    sum.duration_seconds += Number(row.duration_seconds ?? 0);
    if (row.cost_cents !== null) {
      sum.cost_cents += Number(row.cost_cents);
      sum.costed += 1;
    }
    sums.set(key, sum);
  }
  return sorted([...sums.values()]);
}

async function stored(store: Store, siteId: string): Promise<RollupRow[]> {
  const rows = await store.db.knex<RollupRow>(ROLLUPS_TABLE).where({ site_id: siteId });
  return sorted(
    rows.map((row) => ({
      ...row,
      bucket_start: Number(row.bucket_start),
      events: Number(row.events),
      duration_seconds: Number(row.duration_seconds),
      cost_cents: Math.round(Number(row.cost_cents) * 1000) / 1000,
      costed: Number(row.costed),
    })),
  );
}

const sorted = (rows: RollupRow[]) =>
  rows
    .map((row) => ({ ...row, cost_cents: Math.round(row.cost_cents * 1000) / 1000 }))
    .sort((a, b) =>
      `${a.bucket_start}|${a.type}|${a.function_name}`.localeCompare(
        `${b.bucket_start}|${b.type}|${b.function_name}`,
      ),
    );

for (const target of databaseTargets) {
  describe(`usage rollups on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let store: Store;

    beforeEach(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      store = new Store(openDatabase(loadSettings({ DATABASE_URL: database.url }).database));
    });
    afterEach(async () => {
      await store?.close();
      await database?.drop();
    });

    it("adds each stored batch to the rollups, a repeated client id once", async () => {
      await migrate(store.db);
      const siteId = `roll-${crypto.randomBytes(3).toString("hex")}`;
      const end = Date.UTC(2026, 10, 1, 12);
      const batch = events(siteId, 400, end, true);
      for (let i = 0; i < batch.length; i += 100) {
        await store.events.storeUsage(batch.slice(i, i + 100));
      }
      // The same events again, as a retry writes them (new ids, the same client ids): nothing
      // is added.
      await store.events.storeUsage(
        batch.slice(0, 100).map((row) => ({ ...row, id: newId("evt") })),
      );
      await store.events.storeUsage(events(siteId, 50, end));
      const expected = await recomputed(store, siteId);
      expect(expected.reduce((n, row) => n + row.events, 0)).to.equal(370);
      expect(await stored(store, siteId)).to.deep.equal(expected);
    });

    it("rolls up the events stored before the migration", async () => {
      for (let i = 0; i < 8; i += 1) await store.db.knex.migrate.up({ migrationSource });
      const siteId = `back-${crypto.randomBytes(3).toString("hex")}`;
      const rows = events(siteId, 300, Date.UTC(2026, 2, 8, 9));
      await store.db.knex("usage_events").insert(rows);
      expect((await migrate(store.db))[0]).to.equal("009-usage-rollups");
      expect(await stored(store, siteId)).to.deep.equal(await recomputed(store, siteId));
    });
  });
}
