/**
 * The widget's housekeeping, the job `widget.sweep`, run every minute by one instance: ends the
 * sessions that went idle or ran out of time (as if they had said session_end; ending is
 * conditional in the store, so a sweep taken over from an instance that died ends each session
 * once), forgets hashed IPs after an hour and deletes expired transcripts, a bounded batch at a
 * time, and logs what it did when it did anything.
 */
import type { Logger } from "pino";
import { every, MINUTE, type JobDefinition } from "../jobs/job-definition.ts";
import { SESSION_MAX_MS, type SessionService } from "./session-service.ts";
import type { TranscriptService } from "./transcript-service.ts";
import type { UsageService } from "./usage-service.ts";

/** Rows one statement of the sweep changes at most. */
const BATCH = 5_000;

/** What a sweep needs of the service's parts. */
export interface SweepParts {
  sessions: SessionService;
  usage: UsageService;
  transcripts: TranscriptService;
  logger: Logger;
}

/** What one sweep did. */
export interface SweepOutcome {
  sessions_ended: number;
  ip_hashes_cleared: number;
  transcripts_deleted: number;
}

/** The sweep as a job (core/jobs/job-definitions.ts). */
export const widgetSweepJob: JobDefinition<SweepParts> = {
  name: "widget.sweep",
  schedule: every(MINUTE),
  concurrency: 1,
  // A sweep takes seconds; after a crash mid-sweep the next one waits this long.
  lockLifetimeMs: 5 * MINUTE,
  run: (parts) => sweepWidgetData(parts),
};

export async function sweepWidgetData(parts: SweepParts, batch = BATCH): Promise<SweepOutcome> {
  let ended = 0;
  for (const session of await parts.sessions.expired()) {
    // An idle session ended when it was last seen, not now.
    const at = Math.min(session.last_seen_at, session.created_at + SESSION_MAX_MS);
    await parts.usage.endSession(session, "idle", {}, at);
    ended += 1;
  }
  const outcome: SweepOutcome = {
    sessions_ended: ended,
    ip_hashes_cleared: await parts.sessions.forgetIps(batch),
    transcripts_deleted: await parts.transcripts.deleteExpired(batch),
  };
  if (Object.values(outcome).some((count) => count > 0)) {
    parts.logger.info(
      outcome,
      "widget sweep: idle sessions ended, IP hashes past an hour cleared, expired transcripts deleted",
    );
  }
  return outcome;
}
