/** A visitor data request as the API answers it (docs/visitor-data.md). */
import type { UserDataRequestRow } from "../store/repos/user-data-repo.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

export type RequestView = ReturnType<typeof requestView>;

/** `downloadUrl`: the export's signed link, while its document is kept. */
export function requestView(row: UserDataRequestRow, downloadUrl?: string) {
  return {
    request_id: row.id,
    type: row.kind,
    site_id: row.site_id,
    status: row.status,
    created_at: iso(row.created_at) as string,
    due_by: iso(row.due_by) as string,
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    attempts: Number(row.attempts),
    result: row.result === null ? null : (JSON.parse(row.result) as Record<string, unknown>),
    ...(row.kind === "export"
      ? {
          download_url: downloadUrl ?? null,
          download_expires_at: downloadUrl === undefined ? null : iso(row.download_expires_at),
        }
      : {}),
  };
}
