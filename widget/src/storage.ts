/**
 * The widget's only client-side state: `service:notice:<site_id>` in localStorage (the privacy
 * notice was accepted, with the visitor's choices: captions hidden, typing rather than talking)
 * and `service:session:<site_id>` in sessionStorage (the conversation, so a refresh or another
 * page of the site resumes it in the same tab). No cookie is ever set. Storage can throw (blocked,
 * full, private modes): then the widget works without remembering.
 */
import type { Mode, StoredSession } from "./types.ts";

/** What the notice's entry keeps beside the time it was accepted. */
export interface Choices {
  captions_hidden?: boolean;
  mode?: Mode;
}

const noticeKey = (siteId: string) => `service:notice:${siteId}`;
const sessionKey = (siteId: string) => `service:session:${siteId}`;

export function noticeAccepted(siteId: string): boolean {
  return attempt(() => localStorage.getItem(noticeKey(siteId)) !== null, false);
}

export function acceptNotice(siteId: string): void {
  if (!noticeAccepted(siteId)) saveEntry(siteId, { accepted_at: new Date().toISOString() });
}

/** The visitor's choices; none before the notice is accepted (or from an entry of old). */
export function choices(siteId: string): Choices {
  const text = attempt(() => localStorage.getItem(noticeKey(siteId)), null);
  try {
    const entry = JSON.parse(text ?? "") as unknown;
    return entry !== null && typeof entry === "object" ? (entry as Choices) : {};
  } catch {
    return {};
  }
}

/** Keeps a choice with the notice, once it is accepted. */
export function choose(siteId: string, choice: Choices): void {
  if (noticeAccepted(siteId)) saveEntry(siteId, { ...choices(siteId), ...choice });
}

function saveEntry(siteId: string, entry: object): void {
  attempt(() => localStorage.setItem(noticeKey(siteId), JSON.stringify(entry)), undefined);
}

/** The stored conversation, unless it is missing, unreadable or past its end. */
export function loadSession(siteId: string, now = Date.now()): StoredSession | undefined {
  const text = attempt(() => sessionStorage.getItem(sessionKey(siteId)), null);
  if (text === null) return undefined;
  try {
    const stored = JSON.parse(text) as StoredSession;
    if (typeof stored.session_id === "string" && Date.parse(stored.expires_at) > now) return stored;
  } catch {
    // An unreadable entry is dropped below.
  }
  clearSession(siteId);
  return undefined;
}

export function saveSession(siteId: string, session: StoredSession): void {
  attempt(() => sessionStorage.setItem(sessionKey(siteId), JSON.stringify(session)), undefined);
}

export function clearSession(siteId: string): void {
  attempt(() => sessionStorage.removeItem(sessionKey(siteId)), undefined);
}

function attempt<T>(action: () => T, fallback: T): T {
  try {
    return action();
  } catch {
    return fallback;
  }
}
