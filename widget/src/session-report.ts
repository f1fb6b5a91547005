/**
 * A conversation's session as the tab keeps it and the service hears of it: its record from the
 * token's answer, the transcript's turns the service has not confirmed (in batches a keepalive
 * request can carry: its body must stay under 64 KiB; a resent batch is the same signed body,
 * which the service keeps once), and its end.
 */
import type { Api, Signer } from "./api.ts";
import type { Mode, StoredSession, TokenAnswer, Turn } from "./types.ts";

const BATCH_CHARS = 40_000;
const BATCH_TURNS = 500;

/**
 * Sends `session`'s unconfirmed turns; false if a batch failed. While the page unloads, one batch
 * leaves with `keepalive` and nothing is awaited. `saved` is told after each confirmed batch.
 */
export async function sendTurns(
  api: Api,
  session: StoredSession,
  unloading: boolean,
  saved: () => void,
): Promise<boolean> {
  while (session.sent < session.turns.length) {
    const batch = nextBatch(session.turns, session.sent);
    const body = { turns: batch, page_url: session.page_url };
    const sending = api.signed(session as Signer, "transcript", body, { unloading });
    if (unloading) {
      sending.catch(() => undefined);
      return true;
    }
    try {
      await sending;
    } catch {
      return false;
    }
    session.sent += batch.length;
    saved();
  }
  return true;
}

/** A new conversation's record, from the token's answer. */
export function newStoredSession(token: TokenAnswer, mode: Mode, pageUrl: string): StoredSession {
  return {
    session_id: token.session_id,
    mode,
    signing_secret: token.signing_secret,
    expires_at: token.session_expires_at,
    page_url: pageUrl,
    started_at: Date.now(),
    turns: [],
    sent: 0,
    function_calls: 0,
  };
}

/** The end: the turns not yet sent, then `session_end` with the mode and the function calls. */
export async function reportEnd(api: Api, session: StoredSession): Promise<void> {
  await sendTurns(api, session, false, () => undefined);
  const metadata = {
    session_id: session.session_id,
    function_calls: session.function_calls,
    mode: session.mode,
  };
  await api
    .signed(session, "analytics/event", { type: "session_end", metadata })
    .catch(() => undefined);
}

/** Turns from `from`, as many as fit one keepalive body (at least one). */
function nextBatch(turns: Turn[], from: number): Turn[] {
  let size = 0;
  let end = from;
  while (end < turns.length && end - from < BATCH_TURNS) {
    const next = JSON.stringify(turns[end]).length;
    if (end > from && size + next > BATCH_CHARS) break;
    size += next;
    end += 1;
  }
  return turns.slice(from, end);
}
