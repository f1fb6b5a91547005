/**
 * The widget's housekeeping, run every minute on each instance: ends the sessions that went idle
 * or ran out of time (as if they had said session_end; ending is conditional in the store, so
 * with several instances each session ends once), forgets hashed IPs after an hour and deletes
 * expired transcripts.
 */
import { SESSION_MAX_MS, type SessionService } from "./session-service.ts";
import type { TranscriptService } from "./transcript-service.ts";
import type { UsageService } from "./usage-service.ts";

export async function sweepWidgetData(parts: {
  sessions: SessionService;
  usage: UsageService;
  transcripts: TranscriptService;
}): Promise<number> {
  let ended = 0;
  for (const session of await parts.sessions.expired()) {
    // An idle session ended when it was last seen, not now.
    const at = Math.min(session.last_seen_at, session.created_at + SESSION_MAX_MS);
    await parts.usage.endSession(session, "idle", {}, at);
    ended += 1;
  }
  await parts.sessions.forgetIps();
  await parts.transcripts.deleteExpired();
  return ended;
}
