/**
 * Visitor data requests (migration 017): the requests, which are also the queue their jobs work
 * from, and the sealed export documents.
 */
import { newestFirst } from "../newest-first.ts";
import type { Knex } from "knex";
import type { DatabaseClient } from "../../settings.ts";
import { insertSkippingDuplicate } from "../insert-skipping-duplicate.ts";

export type UserDataKind = "export" | "delete";
export type UserDataStatus = "pending" | "running" | "done" | "failed";

export interface UserDataRequestRow {
  id: string;
  workspace_id: string;
  site_id: string;
  kind: UserDataKind;
  status: UserDataStatus;
  /** The fingerprint, sealed; null once the request no longer needs it. */
  subject: string | null;
  /** SHA-256 of site id and fingerprint; null once nothing is to be found by it. */
  subject_hash: string | null;
  /** `kind:subject_hash` while pending or running: one open request of a kind per visitor. */
  open_key: string | null;
  requested_by: string;
  created_at: number;
  due_by: number;
  started_at: number | null;
  finished_at: number | null;
  attempts: number;
  next_attempt_at: number | null;
  lease_until: number | null;
  last_error: string | null;
  alerted_at: number | null;
  /** JSON of counts. */
  result: string | null;
  download_expires_at: number | null;
}

export interface UserDataExportRow {
  request_id: string;
  site_id: string;
  subject_hash: string;
  /** The JSON document, sealed. */
  document: string;
  created_at: number;
  expires_at: number;
}

export interface UserDataCursor {
  created_at: number;
  id: string;
}

const OPEN = ["pending", "running"] as const;

export class UserDataRepo {
  constructor(
    private readonly knex: Knex,
    private readonly client: DatabaseClient,
  ) {}

  /**
   * Inserts `row` unless a request with its open key is open; the open request either way (the
   * unique open key settles two callers racing).
   */
  async insertOpen(row: UserDataRequestRow & { open_key: string }): Promise<UserDataRequestRow> {
    await insertSkippingDuplicate(this.knex, "user_data_requests", row, ["open_key"], this.client);
    const stored = await this.knex<UserDataRequestRow>("user_data_requests")
      .where({ open_key: row.open_key })
      .first();
    // Finished between the insert and this read: the caller's request is a new one.
    return stored ?? this.insertOpen(row);
  }

  async get(id: string): Promise<UserDataRequestRow | undefined> {
    return this.knex<UserDataRequestRow>("user_data_requests").where({ id }).first();
  }

  /** Newest first, keyset-paged. */
  async list(
    workspaceId: string,
    query: {
      limit: number;
      siteId?: string;
      siteIds?: readonly string[];
      kind?: UserDataKind;
      status?: UserDataStatus;
      before?: UserDataCursor;
    },
  ): Promise<UserDataRequestRow[]> {
    const q = this.knex<UserDataRequestRow>("user_data_requests").where({
      workspace_id: workspaceId,
    });
    if (query.siteId !== undefined) q.where({ site_id: query.siteId });
    if (query.siteIds !== undefined) q.whereIn("site_id", [...query.siteIds]);
    if (query.kind !== undefined) q.where({ kind: query.kind });
    if (query.status !== undefined) q.where({ status: query.status });
    return newestFirst(q, query.before).limit(query.limit);
  }

  /**
   * Takes the request to run it until `leaseUntil`: when it is pending and due, or running under
   * a lease that ran out (its instance died). False when another run has it or it is not due.
   */
  async claim(id: string, now: number, leaseUntil: number): Promise<boolean> {
    const changed = await this.knex("user_data_requests")
      .where({ id })
      .where((w) =>
        w
          .where((p) => p.where({ status: "pending" }).where("next_attempt_at", "<=", now))
          .orWhere((r) => r.where({ status: "running" }).where("lease_until", "<", now)),
      )
      .update({
        status: "running",
        lease_until: leaseUntil,
        started_at: this.knex.raw("COALESCE(started_at, ?)", [now]),
        attempts: this.knex.raw("attempts + 1"),
      });
    return changed === 1;
  }

  /** Ids of requests due to run at `now` (pending and due, or left running), oldest first. */
  async due(now: number, limit: number): Promise<string[]> {
    const rows = await this.knex("user_data_requests")
      .where((w) =>
        w
          .where((p) => p.where({ status: "pending" }).where("next_attempt_at", "<=", now))
          .orWhere((r) => r.where({ status: "running" }).where("lease_until", "<", now)),
      )
      .orderBy("next_attempt_at")
      .limit(limit)
      .select<{ id: string }[]>("id");
    return rows.map((row) => row.id);
  }

  /** Open requests created at or before `createdBy` or tried `attempts` times, not yet alerted. */
  async toAlert(createdBy: Record<UserDataKind, number>, attempts: number) {
    return this.knex<UserDataRequestRow>("user_data_requests")
      .whereIn("status", OPEN)
      .whereNull("alerted_at")
      .where((w) => {
        for (const [kind, at] of Object.entries(createdBy)) {
          w.orWhere((k) => k.where("kind", kind).where("created_at", "<=", at));
        }
        w.orWhere("attempts", ">=", attempts);
      });
  }

  /** Marks the alert raised, once: whether this call marked it. */
  async markAlerted(id: string, at: number): Promise<boolean> {
    const changed = await this.knex("user_data_requests")
      .where({ id })
      .whereNull("alerted_at")
      .update({ alerted_at: at });
    return changed === 1;
  }

  /**
   * Open requests whose deadline has passed, but for one a run holds now (its outcome decides).
   */
  async overdue(now: number): Promise<UserDataRequestRow[]> {
    return this.knex<UserDataRequestRow>("user_data_requests")
      .where("due_by", "<=", now)
      .where((w) =>
        w
          .where({ status: "pending" })
          .orWhere((r) => r.where({ status: "running" }).where("lease_until", "<", now)),
      );
  }

  /** A failed attempt: pending again, tried next at `nextAt`. */
  async retryLater(id: string, nextAt: number, error: string): Promise<void> {
    await this.knex("user_data_requests")
      .where({ id, status: "running" })
      .update({
        status: "pending",
        lease_until: null,
        next_attempt_at: nextAt,
        last_error: error.slice(0, 500),
      });
  }

  /**
   * Finishes an open request: done (with its result) or failed. It no longer holds its open key
   * nor, unless it is an export whose document is kept, the visitor's fingerprint.
   */
  async finish(
    id: string,
    outcome: {
      status: "done" | "failed";
      at: number;
      result?: Record<string, unknown>;
      keepSubject?: boolean;
      downloadExpiresAt?: number;
      error?: string;
    },
  ): Promise<boolean> {
    const changed = await this.knex("user_data_requests")
      .where({ id })
      .whereIn("status", OPEN)
      .update({
        status: outcome.status,
        finished_at: outcome.at,
        open_key: null,
        lease_until: null,
        next_attempt_at: null,
        last_error: outcome.error === undefined ? null : outcome.error.slice(0, 500),
        result: outcome.result === undefined ? null : JSON.stringify(outcome.result),
        download_expires_at: outcome.downloadExpiresAt ?? null,
        ...(outcome.keepSubject === true ? {} : { subject: null, subject_hash: null }),
      });
    return changed === 1;
  }

  async putExport(row: UserDataExportRow): Promise<void> {
    await this.knex("user_data_exports").where({ request_id: row.request_id }).delete();
    await this.knex("user_data_exports").insert(row);
  }

  async getExport(requestId: string): Promise<UserDataExportRow | undefined> {
    return this.knex<UserDataExportRow>("user_data_exports")
      .where({ request_id: requestId })
      .first();
  }

  async hasExport(requestId: string): Promise<boolean> {
    const row = await this.knex("user_data_exports")
      .where({ request_id: requestId })
      .first("request_id");
    return row !== undefined;
  }

  /**
   * Deletes the export documents of a visitor on a site (an erasure): how many. Their requests
   * forget the fingerprint.
   */
  async deleteExportsOf(subjectHash: string): Promise<number> {
    const deleted = await this.knex("user_data_exports")
      .where({ subject_hash: subjectHash })
      .delete();
    await this.forgetSubject(subjectHash);
    return deleted;
  }

  /** Deletes up to `limit` export documents whose link expired by `now`: how many. */
  async deleteExpiredExports(now: number, limit: number): Promise<number> {
    const expired = await this.knex("user_data_exports")
      .where("expires_at", "<=", now)
      .orderBy("expires_at")
      .limit(limit)
      .select<{ request_id: string; subject_hash: string }[]>("request_id", "subject_hash");
    if (expired.length === 0) return 0;
    const ids = expired.map((row) => row.request_id);
    await this.knex("user_data_exports").whereIn("request_id", ids).delete();
    await this.knex("user_data_requests")
      .whereIn("id", ids)
      .whereNotIn("status", OPEN)
      .update({ subject: null, subject_hash: null });
    return ids.length;
  }

  /** Finished requests of the visitor forget the fingerprint. */
  private async forgetSubject(subjectHash: string): Promise<void> {
    await this.knex("user_data_requests")
      .where({ subject_hash: subjectHash })
      .whereNotIn("status", OPEN)
      .update({ subject: null, subject_hash: null });
  }

  /** Every sealed value of the requests and exports, for re-sealing under a new master key. */
  async sealed(): Promise<{ requests: { id: string; subject: string }[]; exports: string[] }> {
    const requests = await this.knex("user_data_requests")
      .whereNotNull("subject")
      .select<{ id: string; subject: string }[]>("id", "subject");
    const exports =
      await this.knex("user_data_exports").select<{ request_id: string }[]>("request_id");
    return { requests, exports: exports.map((row) => row.request_id) };
  }

  async resealSubject(id: string, subject: string): Promise<void> {
    await this.knex("user_data_requests").where({ id }).whereNotNull("subject").update({ subject });
  }

  async resealExport(requestId: string, document: string): Promise<void> {
    await this.knex("user_data_exports").where({ request_id: requestId }).update({ document });
  }
}
