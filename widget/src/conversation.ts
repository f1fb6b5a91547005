/**
 * A visitor's conversation from the click to the end: the privacy notice (once per site), the
 * microphone, a session from the token endpoint, the call, the functions the agent calls, and
 * what is sent when it ends (the transcript, then `session_end`). The conversation is kept in
 * sessionStorage as it goes, so a refresh or another page of the site resumes the same session
 * with a fresh provider token (`session/resume`). A lost connection is reconnected once; a second
 * loss ends it with a message.
 *
 * When the page goes away mid-call, the turns not yet sent leave with `keepalive` (signed before
 * the page goes); the session stays open for the next page to resume, and if none does, the
 * service ends it once it has been idle for 30 minutes. A resent batch of turns is the same signed
 * body, which the service keeps once.
 */
import { ApiError, type Api, type Signer } from "./api.ts";
import { VoiceCall, type CallHandlers, type FunctionCall } from "./call.ts";
import { acceptNotice, clearSession, noticeAccepted, saveSession } from "./storage.ts";
import { runTool } from "./tools.ts";
import type { StringKey } from "./strings.ts";
import type { CrawledPage, ProviderSession, StoredSession, Turn, WidgetConfig } from "./types.ts";
import type { WidgetUi } from "./ui.ts";

/** A keepalive request's body must stay under 64 KiB; turns go in batches below that. */
const BATCH_CHARS = 40_000;
const BATCH_TURNS = 500;

export class Conversation {
  private session: StoredSession | undefined;
  private call: VoiceCall | undefined;
  private microphone: MediaStream | undefined;
  private pages: Promise<CrawledPage[]> | undefined;
  private reconnected = false;
  private busy = false;

  constructor(
    private readonly api: Api,
    private readonly config: WidgetConfig,
    private readonly ui: WidgetUi,
  ) {}

  /** The launcher was pressed: the notice if not yet accepted, then a new session. */
  async start(): Promise<void> {
    if (this.busy || this.session !== undefined) return;
    const siteId = this.config.site_id;
    if (!noticeAccepted(siteId)) {
      if (!(await this.ui.askNotice())) return;
      acceptNotice(siteId);
    }
    this.busy = true;
    try {
      this.ui.show("connecting");
      if (!(await this.openMicrophone())) return;
      let token;
      try {
        token = await this.api.token(pageUrl());
      } catch (error) {
        this.stopMicrophone();
        this.ui.show("error", explain(error));
        return;
      }
      this.session = {
        session_id: token.session_id,
        signing_secret: token.signing_secret,
        expires_at: token.session_expires_at,
        page_url: pageUrl(),
        started_at: Date.now(),
        turns: [],
        sent: 0,
        function_calls: 0,
      };
      this.save();
      await this.connect(token);
    } finally {
      this.busy = false;
    }
  }

  /** A conversation this tab had open on an earlier page: the same session, a new call. */
  async resume(stored: StoredSession): Promise<void> {
    this.session = stored;
    this.busy = true;
    try {
      this.ui.show("connecting", "reconnecting");
      if (!(await this.openMicrophone())) {
        await this.finish();
        return;
      }
      void this.flushTurns();
      let provider: ProviderSession;
      try {
        provider = await this.api.resume(stored, pageUrl());
      } catch (error) {
        // The session ended meanwhile (hung up in another tab, idle, past its end): start afresh.
        this.stopMicrophone();
        this.session = undefined;
        clearSession(this.config.site_id);
        if (error instanceof ApiError && error.code === "invalid_signature") this.ui.show("idle");
        else this.ui.show("error", explain(error));
        return;
      }
      await this.connect(provider);
    } finally {
      this.busy = false;
    }
  }

  /** The visitor's hang-up. */
  async hangUp(): Promise<void> {
    this.call?.close();
    this.call = undefined;
    this.ui.show("ended");
    await this.finish();
  }

  /** The page is going away: what is unsent leaves now; the session waits for the next page. */
  pageHidden(): void {
    if (this.session === undefined) return;
    this.save();
    void this.flushTurns(true);
  }

  private async connect(provider: ProviderSession): Promise<void> {
    const history = this.session?.turns ?? [];
    // Read once per conversation on this page (not per page view), while the call connects.
    void this.crawledPages();
    try {
      this.call = await VoiceCall.connect(provider, this.microphone!, this.handlers(), history);
      // The service keeps the provider's call with the session, and controls it from its side.
      const callId = this.call.callId;
      if (callId !== undefined && this.session !== undefined) {
        this.api.signed(this.session, "session/call", { call_id: callId }).catch(() => undefined);
      }
    } catch {
      this.ui.show("error", "failed");
      await this.finish();
    }
  }

  private handlers(): CallHandlers {
    return {
      state: (state) => this.ui.show(state),
      turn: (turn) => this.record(turn),
      functionCall: (call) => this.runFunction(call),
      lost: () => void this.lost(),
    };
  }

  private async runFunction(call: FunctionCall): Promise<unknown> {
    const session = this.session;
    if (session === undefined) return { error: "The conversation has ended" };
    session.function_calls += 1;
    this.record({
      role: "function",
      name: call.name,
      arguments: call.arguments,
      at: new Date().toISOString(),
    });
    // The call's id keeps each event its own: the service counts a repeated one once. A site
    // search is counted by the service as it answers it.
    if (call.name !== "search_site") {
      const event = {
        type: "function_call",
        function_name: call.name,
        metadata: { client_event_id: call.call_id },
      };
      this.api.signed(session, "analytics/event", event).catch(() => undefined);
    }
    return runTool(call, {
      api: this.api,
      signer: session,
      pages: () => this.crawledPages(),
      navigate: (url) => location.assign(url),
      turns: () => session.turns,
    });
  }

  /** The crawled pages and their sections (site intelligence); none when it cannot be read. */
  private crawledPages(): Promise<CrawledPage[]> {
    this.pages ??= this.api.pages().catch(() => []);
    return this.pages;
  }

  private async lost(): Promise<void> {
    this.call = undefined;
    const session = this.session;
    if (session === undefined) return;
    if (this.reconnected) {
      this.ui.show("error", "lost");
      await this.finish();
      return;
    }
    this.reconnected = true;
    this.ui.show("connecting", "reconnecting");
    try {
      await this.connect(await this.api.resume(session, pageUrl()));
    } catch {
      this.ui.show("error", "lost");
      await this.finish();
    }
  }

  private record(turn: Turn): void {
    if (this.session === undefined) return;
    this.session.turns.push(turn);
    this.save();
  }

  /** The end: the turns not yet sent, then `session_end`; the tab forgets the session. */
  private async finish(): Promise<void> {
    this.stopMicrophone();
    const session = this.session;
    this.session = undefined;
    this.reconnected = false;
    clearSession(this.config.site_id);
    if (session === undefined) return;
    await this.flushTurns(false, session);
    await this.api
      .signed(session, "analytics/event", {
        type: "session_end",
        metadata: { session_id: session.session_id, function_calls: session.function_calls },
      })
      .catch(() => undefined);
  }

  /** Sends the turns the service has not confirmed, in batches; false if one failed. */
  private async flushTurns(unloading = false, session = this.session): Promise<boolean> {
    if (session === undefined) return true;
    while (session.sent < session.turns.length) {
      const batch = nextBatch(session.turns, session.sent);
      const body = { turns: batch, page_url: session.page_url };
      const sending = this.api.signed(session as Signer, "transcript", body, { unloading });
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
      if (session === this.session) this.save();
    }
    return true;
  }

  private async openMicrophone(): Promise<boolean> {
    try {
      this.microphone = await navigator.mediaDevices.getUserMedia({ audio: true });
      return true;
    } catch {
      this.ui.show("error", "microphone_refused");
      return false;
    }
  }

  private stopMicrophone(): void {
    for (const track of this.microphone?.getTracks() ?? []) track.stop();
    this.microphone = undefined;
  }

  private save(): void {
    if (this.session !== undefined) saveSession(this.config.site_id, this.session);
  }
}

/** The page's address without its query and fragment, which may hold a visitor's details. */
function pageUrl(): string {
  return location.origin + location.pathname;
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

function explain(error: unknown): StringKey {
  if (!(error instanceof ApiError)) return "failed";
  if (error.status === 503) return "unavailable";
  if (error.status === 429) return "busy";
  return "failed";
}
