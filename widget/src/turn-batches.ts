/**
 * The transcript's way to the service: the turns it has not confirmed, in batches a keepalive
 * request can carry (its body must stay under 64 KiB). A resent batch is the same signed body,
 * which the service keeps once.
 */
import type { Api, Signer } from "./api.ts";
import type { StoredSession, Turn } from "./types.ts";

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
