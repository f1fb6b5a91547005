/**
 * Commit order for a site's usage events. Ids are made when an event is recorded, before its
 * batch commits, and instances batch on their own clocks: an event can commit after one with a
 * higher id, which a stream replaying "every event after the last id seen" would then never send.
 * So a batch locks its sites' heads (in site order, so two batches never wait on each other in a
 * cycle), and gives each event an id above its site's head: its own when that is above already
 * (nearly always), else one a random step above the head (`idAfter`). The lock is held to the
 * commit, so a site's ids grow in commit order across instances, and every event below the last
 * id one reads has committed.
 */
import crypto from "node:crypto";
import type BetterSqlite3 from "better-sqlite3";
import type { Knex } from "knex";
import { incrementBase32 } from "ulid";
import type { DatabaseClient } from "../../settings.ts";
import { insertSkippingDuplicate } from "../insert-skipping-duplicate.ts";
import type { UsageEventRow } from "./usage-event-row.ts";

export const HEADS_TABLE = "usage_stream_heads";

/** ULID's alphabet, lower case as ids are; the ulid package encodes only the 48-bit time part. */
const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";
const RANDOM_CHARS = 16;
const RANDOM_LIMIT = 1n << 80n;

/**
 * `id` when it sorts after `previous`, else an id a little above `previous`: the same time, its
 * random part raised by a random step up to 2^32 (by one, it would be the very id the monotonic
 * ULID factory makes next in that millisecond, which another event may have).
 */
export function idAfter(previous: string, id: string): string {
  if (id > previous) return id;
  const cut = previous.indexOf("_") + 1;
  const time = previous.slice(cut, previous.length - RANDOM_CHARS);
  let random = 0n;
  for (const c of previous.slice(-RANDOM_CHARS))
    random = random * 32n + BigInt(CROCKFORD.indexOf(c));
  const raised = random + 1n + BigInt(crypto.randomInt(2 ** 32));
  if (raised >= RANDOM_LIMIT) {
    // The millisecond's ids are spent (never in practice): the next millisecond's.
    return idAfter(
      previous,
      previous.slice(0, cut) +
        incrementBase32(time.toUpperCase()).toLowerCase() +
        "0".repeat(RANDOM_CHARS),
    );
  }
  let text = "";
  for (let rest = raised, i = 0; i < RANDOM_CHARS; i++, rest /= 32n) {
    text = CROCKFORD[Number(rest % 32n)]! + text;
  }
  return previous.slice(0, cut) + time + text;
}

/** `rows` with the ids they are stored with, given each site's head; `heads` is advanced. */
function ordered(rows: readonly UsageEventRow[], heads: Map<string, string>): UsageEventRow[] {
  return rows.map((row) => {
    const id = idAfter(heads.get(row.site_id) ?? "", row.id);
    heads.set(row.site_id, id);
    return id === row.id ? row : { ...row, id };
  });
}

/**
 * In a PostgreSQL or MySQL transaction: locks the heads of the sites of `rows` until it ends,
 * advances them past `rows`, and returns `rows` with the ids to store them with.
 */
export async function takeStreamOrder(
  trx: Knex.Transaction,
  client: DatabaseClient,
  rows: readonly UsageEventRow[],
): Promise<UsageEventRow[]> {
  const sites = [...new Set(rows.map((row) => row.site_id))].sort();
  // A site's first batch makes its head; a batch racing it waits for that insert, then finds it.
  const fresh = sites.map((site_id) => ({ site_id, last_id: "" }));
  await insertSkippingDuplicate(trx, HEADS_TABLE, fresh, ["site_id"], client, "site_id");
  const locked = await trx(HEADS_TABLE)
    .whereIn("site_id", sites)
    .orderBy("site_id")
    .forUpdate()
    .select<{ site_id: string; last_id: string }[]>("site_id", "last_id");
  const heads = new Map(locked.map((head) => [head.site_id, head.last_id]));
  const result = ordered(rows, heads);
  // One statement for every site (a batch spans hundreds under load): the rows exist and are
  // locked, so the upsert only updates.
  await trx(HEADS_TABLE)
    .insert(sites.map((site_id) => ({ site_id, last_id: heads.get(site_id) })))
    .onConflict("site_id")
    .merge(["last_id"]);
  return result;
}

/** The same on a better-sqlite3 connection, inside its synchronous transaction (one writer). */
export function sqliteStreamOrder(
  conn: BetterSqlite3.Database,
): (rows: readonly UsageEventRow[]) => UsageEventRow[] {
  const read = conn.prepare<[string], { last_id: string }>(
    `select last_id from ${HEADS_TABLE} where site_id = ?`,
  );
  const write = conn.prepare<[string, string]>(
    `insert into ${HEADS_TABLE} (site_id, last_id) values (?, ?)` +
      " on conflict (site_id) do update set last_id = excluded.last_id",
  );
  return (rows) => {
    const heads = new Map<string, string>();
    for (const row of rows) {
      if (!heads.has(row.site_id)) heads.set(row.site_id, read.get(row.site_id)?.last_id ?? "");
    }
    const result = ordered(rows, heads);
    for (const [site, last] of heads) write.run(site, last);
    return result;
  };
}

/** The id of a site's last usage event in commit order; "" before its first. */
export async function streamHead(knex: Knex, siteId: string): Promise<string> {
  const head = await knex(HEADS_TABLE)
    .where("site_id", siteId)
    .first<{ last_id: string }>("last_id");
  return head?.last_id ?? "";
}
