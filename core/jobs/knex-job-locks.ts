/**
 * Locking jobs on the knex backend: one winner per job, whatever the number of processors.
 *
 * - SQLite: one statement, `UPDATE … WHERE id = (SELECT … LIMIT 1) RETURNING *`. A statement that
 *   writes takes the database's write lock before it reads, so the row it picks is still free when
 *   it marks it, across connections and processes; nothing is held across an await, so a second
 *   connection in the same process (or the CLI on the same file) never waits on a lock held by a
 *   paused transaction.
 * - MySQL/MariaDB: a short transaction. `SELECT … FOR UPDATE SKIP LOCKED` picks a free row and
 *   locks it (a racing transaction skips it rather than waiting, and once this one commits, sees
 *   it locked), the UPDATE marks it, and it is read back before COMMIT. READ COMMITTED, so the
 *   locking read leaves no gap locks on the rows it passed over. SKIP LOCKED needs MariaDB 10.6
 *   or MySQL 8. Two such reads racing can skip each other's row and both come back empty, so an
 *   empty answer is checked by a plain read, and a row still free is then locked by its id
 *   waiting for whoever holds it: once that one commits, the waiting read sees the row as it
 *   left it, and takes it only if it is still free.
 */
import type { Knex } from "knex";
import { NEXT_JOB_ORDER } from "./job-filters.ts";
import { JOBS_TABLE, type JobRow } from "./job-rows.ts";

export type KnexJobsClient = "sqlite" | "mysql";

/** What a lock writes on the row it takes. */
export interface LockMark {
  locked_at: number;
  last_modified_by: string | null;
  updated_at: number;
}

/**
 * Locks the first job (in NEXT_JOB_ORDER) that `pick` selects, and answers its row as locked;
 * undefined when there is none, or another processor took it.
 */
export async function lockFirst(
  knex: Knex,
  client: KnexJobsClient,
  pick: (query: Knex.QueryBuilder) => void,
  mark: LockMark,
): Promise<JobRow | undefined> {
  if (client === "sqlite") {
    const first = knex(JOBS_TABLE).select("id").where(pick).orderByRaw(NEXT_JOB_ORDER).limit(1);
    const rows = (await knex(JOBS_TABLE)
      .where("id", first)
      .update(mark)
      .returning("*")) as unknown as JobRow[];
    return rows[0];
  }
  for (let attempt = 1; ; attempt += 1) {
    const row = await lockFirstMysql(knex, pick, mark, "skip");
    if (row !== undefined) return row;
    // Two racing locking reads can each skip the row the other holds for a moment and both come
    // back empty (seen on MariaDB, a few races in a thousand under load, even when tried again
    // in step). A plain read says whether a row is still free; if so, that row is locked by its
    // id, waiting for a competitor's short transaction to end rather than skipping it: of two
    // processors that both do so, the second finds it taken.
    const free = (await knex(JOBS_TABLE).first("id").where(pick).orderByRaw(NEXT_JOB_ORDER)) as
      { id: string } | undefined;
    if (free === undefined) return undefined;
    const only = (query: Knex.QueryBuilder) => void query.where(pick).where("id", free.id);
    const taken = await lockFirstMysql(knex, only, mark, "wait");
    if (taken !== undefined || attempt === MYSQL_LOCK_ATTEMPTS) return taken;
  }
}

/** How often a MySQL lock is tried while a free row is left (see lockFirst). */
const MYSQL_LOCK_ATTEMPTS = 5;

function lockFirstMysql(
  knex: Knex,
  pick: (query: Knex.QueryBuilder) => void,
  mark: LockMark,
  /** Whether a row another transaction holds is skipped, or waited for. */
  held: "skip" | "wait",
): Promise<JobRow | undefined> {
  return knex.transaction(
    async (trx) => {
      const locking = trx(JOBS_TABLE)
        .first("id")
        .where(pick)
        .orderByRaw(NEXT_JOB_ORDER)
        .forUpdate();
      const first = (await (held === "skip" ? locking.skipLocked() : locking)) as
        { id: string } | undefined;
      if (first === undefined) return undefined;
      await trx(JOBS_TABLE).where("id", first.id).update(mark);
      return trx<JobRow>(JOBS_TABLE).where("id", first.id).first();
    },
    { isolationLevel: "read committed" },
  );
}

/**
 * The jobs of `name` a processor may lock now: enabled, and either unlocked and due before its
 * next scan, or locked before `lockDeadline` (by a processor that died or hung: taken over).
 */
export const lockableNow =
  (name: string, nextScanAt: number, lockDeadline: number) => (query: Knex.QueryBuilder) => {
    query
      .where("name", name)
      .where("disabled", false)
      .where((q) =>
        q
          .where((free) => free.whereNull("locked_at").where("next_run_at", "<=", nextScanAt))
          .orWhere("locked_at", "<=", lockDeadline),
      );
  };

/** The one job `lockJob` may lock: this id and name, unlocked, enabled, still due at `nextRunAt`. */
export const lockableJob =
  (id: string, name: string, nextRunAt: number) => (query: Knex.QueryBuilder) => {
    query
      .where({ id, name, next_run_at: nextRunAt })
      .whereNull("locked_at")
      .where("disabled", false);
  };
