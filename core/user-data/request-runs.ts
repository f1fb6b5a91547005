/**
 * One run of a request, once its lease is taken (user-data-service.ts): the export made and
 * stored sealed, or the erasure carried out, and the request marked done in the same transaction.
 */
import { open, seal, type KeyRing } from "../security/secret-box.ts";
import type { UserDataRequestRow } from "../store/repos/user-data-repo.ts";
import type { Store } from "../store/store.ts";
import { truncateWal } from "../store/wal-truncation.ts";
import { eraseVisitor } from "./erasure.ts";
import { exportDocument } from "./export-document.ts";

/** How long an export's download link (and its document) lasts. */
export const DOWNLOAD_VALID_MS = 7 * 24 * 60 * 60_000;

export interface RunParts {
  store: Store;
  ring: KeyRing;
  now: () => number;
}

export async function runExport(run: RunParts, row: UserDataRequestRow): Promise<void> {
  const { store, ring } = run;
  const fingerprint = open(ring, row.subject as string);
  const at = run.now();
  if ((await store.sites.get(row.site_id)) === undefined) {
    await store.userData.finish(row.id, { status: "done", at, result: { site_deleted: true } });
    return;
  }
  const document = await exportDocument(store, row, fingerprint, at);
  const json = JSON.stringify(document, null, 2);
  const expiresAt = at + DOWNLOAD_VALID_MS;
  await store.transaction(async (tx) => {
    await tx.userData.putExport({
      request_id: row.id,
      site_id: row.site_id,
      subject_hash: row.subject_hash as string,
      document: seal(ring, json),
      created_at: at,
      expires_at: expiresAt,
    });
    await finishOrUndo(tx, row.id, {
      status: "done",
      at,
      keepSubject: true,
      downloadExpiresAt: expiresAt,
      result: {
        sessions: document.sessions.length,
        transcripts: document.transcripts.length,
        usage_events: document.usage_events.length,
        leads: document.leads.length,
        bytes: Buffer.byteLength(json),
      },
    });
  });
}

/**
 * The erasure, committed, then taken out of SQLite's log (wal-truncation.ts): whether that log is
 * empty now (false when another process's read held it; the sweep tries again).
 */
export async function runErasure(run: RunParts, row: UserDataRequestRow): Promise<boolean> {
  const fingerprint = open(run.ring, row.subject as string);
  await run.store.transaction(async (tx) => {
    const at = run.now();
    const counts = await eraseVisitor(
      tx,
      { site_id: row.site_id, subject_hash: row.subject_hash as string },
      fingerprint,
      at,
    );
    await finishOrUndo(tx, row.id, { status: "done", at, result: { ...counts } });
  });
  return truncateWal(run.store.db);
}

/**
 * Marks the request done in the transaction of its work, or undoes that work: a request the
 * deadline failed meanwhile (or another run finished) keeps its outcome.
 */
async function finishOrUndo(
  tx: Store,
  id: string,
  outcome: Parameters<Store["userData"]["finish"]>[1],
): Promise<void> {
  if (!(await tx.userData.finish(id, outcome))) {
    throw new Error(`request ${id} was finished by another run meanwhile`);
  }
}
