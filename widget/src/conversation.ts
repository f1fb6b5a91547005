/**
 * A visitor's conversation from the click to the end: the privacy notice (once per site), the
 * microphone for a voice call or none for a text conversation, a session from the token endpoint,
 * the call, what the visitor types, the functions the agent calls, and what is sent when it ends
 * (the transcript, then `session_end`). The conversation is kept in sessionStorage as it goes, so
 * a refresh or another page of the site resumes the same session, in the same mode, with a fresh
 * provider token (`session/resume`). A lost connection is reconnected once; a second loss ends it
 * with a message. Where voice cannot work (no secure context, no or a refused microphone, a call
 * not connected in time) the panel says so and offers typing.
 *
 * When the page goes away mid-call, the turns not yet sent leave with `keepalive` (signed before
 * the page goes); the session stays open for the next page to resume, and if none does, the
 * service ends it once it has been idle for 30 minutes.
 */
import { ApiError, type Api, type Signer } from "./api.ts";
import { CallError, VoiceCall, type CallHandlers, type FunctionCall } from "./call.ts";
import type { CallbackFields } from "./callback-form.ts";
import { acceptNotice, choices, choose, clearSession, noticeAccepted } from "./storage.ts";
import { saveSession } from "./storage.ts";
import { runTool, toolNote } from "./tools.ts";
import type { StringKey } from "./strings.ts";
import { sendTurns } from "./turn-batches.ts";
import type { CrawledPage, Mode, ProviderSession, StoredSession, Turn } from "./types.ts";
import type { WidgetConfig } from "./types.ts";
import type { WidgetUi } from "./ui.ts";

export class Conversation {
  private session: StoredSession | undefined;
  private call: VoiceCall | undefined;
  private microphone: MediaStream | undefined;
  private pages: Promise<CrawledPage[]> | undefined;
  private reconnected = false;
  private busy = false;
  /** What the visitor typed while the text conversation was connecting. */
  private unsaid: string[] = [];

  constructor(
    private readonly api: Api,
    private readonly config: WidgetConfig,
    private readonly ui: WidgetUi,
  ) {}

  /**
   * The launcher was pressed: the notice if not yet accepted, then the way the visitor chose (or
   * chose last time): a voice call at once, or the text box waiting for their first message.
   */
  async start(): Promise<void> {
    if (this.busy || this.session !== undefined) return;
    const mode = await this.chosenMode();
    if (mode === "text") {
      this.ui.captions.clear();
      this.ui.show("ready", undefined, "text");
      this.ui.focusComposer();
      return;
    }
    if (mode === "voice") await this.startVoice();
  }

  /** A conversation this tab had open on an earlier page: the same session, a new call. */
  async resume(stored: StoredSession): Promise<void> {
    const mode = stored.mode ?? "voice";
    this.session = { ...stored, mode };
    for (const turn of stored.turns) this.ui.caption(turn);
    this.busy = true;
    try {
      this.ui.show("connecting", "reconnecting", mode);
      if (mode === "voice" && !(await this.openMicrophone())) {
        await this.finish();
        return;
      }
      void this.flushTurns();
      let provider: ProviderSession;
      try {
        provider = await this.api.resume(stored, pageUrl(), mode);
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

  /** What the visitor typed: into the call that is on, or the start of a text conversation. */
  async type(message: string): Promise<void> {
    this.unsaid.push(message);
    if (this.call !== undefined) {
      this.sayUnsaid();
      return;
    }
    if (this.busy) return;
    if (this.session === undefined) {
      if ((await this.chosenMode("text")) === undefined) {
        this.unsaid = [];
        return;
      }
      this.busy = true;
      try {
        this.ui.captions.clear();
        this.ui.show("connecting", undefined, "text");
        const token = await this.newSession("text");
        if (token !== undefined) await this.connect(token);
      } finally {
        this.busy = false;
      }
    }
  }

  mute(muted: boolean): void {
    this.call?.mute(muted);
  }

  /** The visitor's hang-up. */
  async hangUp(): Promise<void> {
    this.call?.close();
    this.call = undefined;
    this.ui.show("ended");
    await this.finish();
  }

  /**
   * "Talk to a person" from the panel: the same callback request as the agent's, signed by the
   * conversation's session, or by a session of its own (no provider) when none is on.
   */
  async callback(fields: CallbackFields): Promise<boolean> {
    const session = this.session;
    let signer: Signer;
    try {
      signer = session ?? (await this.api.callbackSession(pageUrl()));
    } catch {
      return false;
    }
    const call = { call_id: `form-${Date.now().toString(36)}`, name: "request_callback" };
    const answer = (await runTool(
      { ...call, arguments: { ...fields } },
      {
        api: this.api,
        signer,
        pages: () => Promise.resolve([]),
        navigate: () => undefined,
        turns: () => session?.turns ?? [],
      },
    )) as { requested?: boolean };
    if (session === undefined) {
      // The form's own session ends with its request.
      const metadata = { session_id: signer.session_id, function_calls: 0, mode: "callback" };
      this.api
        .signed(signer, "analytics/event", { type: "session_end", metadata })
        .catch(() => undefined);
    }
    return answer.requested === true;
  }

  /** The page is going away: what is unsent leaves now; the session waits for the next page. */
  pageHidden(): void {
    if (this.session === undefined) return;
    this.save();
    void this.flushTurns(true);
  }

  /** The notice's answer, or the visitor's earlier choice; undefined when they declined. */
  private async chosenMode(wanted?: Mode): Promise<Mode | undefined> {
    const siteId = this.config.site_id;
    let mode = wanted;
    if (!noticeAccepted(siteId)) {
      mode = await this.ui.askNotice();
      if (mode === undefined) return undefined;
      acceptNotice(siteId);
    }
    mode ??= choices(siteId).mode ?? "voice";
    choose(siteId, { mode });
    return mode;
  }

  private async startVoice(): Promise<void> {
    if (!isSecureContext) {
      this.ui.offerTyping("insecure");
      return;
    }
    this.busy = true;
    try {
      this.ui.captions.clear();
      this.ui.show("connecting", undefined, "voice");
      if (!(await this.openMicrophone())) return;
      const token = await this.newSession("voice");
      if (token === undefined) this.stopMicrophone();
      else await this.connect(token);
    } finally {
      this.busy = false;
    }
  }

  /** A new session in `mode`, kept in sessionStorage; undefined (the error shown) when refused. */
  private async newSession(mode: Mode): Promise<ProviderSession | undefined> {
    let token;
    try {
      token = await this.api.token(pageUrl(), mode);
    } catch (error) {
      this.ui.show("error", explain(error));
      this.unsaid = [];
      return undefined;
    }
    this.session = {
      session_id: token.session_id,
      mode,
      signing_secret: token.signing_secret,
      expires_at: token.session_expires_at,
      page_url: pageUrl(),
      started_at: Date.now(),
      turns: [],
      sent: 0,
      function_calls: 0,
    };
    this.save();
    return token;
  }

  private async connect(provider: ProviderSession): Promise<void> {
    const history = this.session?.turns ?? [];
    // Read once per conversation on this page (not per page view), while the call connects.
    void this.crawledPages();
    try {
      this.call = await VoiceCall.connect(provider, this.microphone, this.handlers(), history);
      // The service keeps the provider's call with the session, and controls it from its side.
      const callId = this.call.callId;
      if (callId !== undefined && this.session !== undefined) {
        this.api.signed(this.session, "session/call", { call_id: callId }).catch(() => undefined);
      }
      this.sayUnsaid();
    } catch (error) {
      const voice = this.session?.mode === "voice";
      await this.finish();
      if (voice && error instanceof CallError && error.status === -1) {
        this.ui.offerTyping("voice_failed");
      } else {
        this.ui.show("error", "failed");
      }
    }
  }

  /** What the visitor typed, into the call and the transcript. */
  private sayUnsaid(): void {
    for (const text of this.unsaid.splice(0)) {
      this.record({ role: "visitor", text, at: new Date().toISOString() });
      this.call?.say(text);
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
    const note = toolNote(call, this.ui.text);
    if (note !== undefined) this.ui.captions.note(note);
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
      await this.connect(await this.api.resume(session, pageUrl(), session.mode));
    } catch {
      this.ui.show("error", "lost");
      await this.finish();
    }
  }

  private record(turn: Turn): void {
    if (this.session === undefined) return;
    this.session.turns.push(turn);
    this.ui.caption(turn);
    this.save();
  }

  /** The end: the turns not yet sent, then `session_end`; the tab forgets the session. */
  private async finish(): Promise<void> {
    this.call?.close();
    this.call = undefined;
    this.stopMicrophone();
    this.unsaid = [];
    const session = this.session;
    this.session = undefined;
    this.reconnected = false;
    clearSession(this.config.site_id);
    if (session === undefined) return;
    await this.flushTurns(false, session);
    const metadata = {
      session_id: session.session_id,
      function_calls: session.function_calls,
      mode: session.mode,
    };
    await this.api
      .signed(session, "analytics/event", { type: "session_end", metadata })
      .catch(() => undefined);
  }

  private flushTurns(unloading = false, session = this.session): Promise<boolean> {
    if (session === undefined) return Promise.resolve(true);
    return sendTurns(this.api, session, unloading, () => {
      if (session === this.session) this.save();
    });
  }

  /** The microphone, or false with the reason shown and typing offered. */
  private async openMicrophone(): Promise<boolean> {
    try {
      this.microphone = await navigator.mediaDevices.getUserMedia({ audio: true });
      return true;
    } catch (error) {
      const name = (error as Error | undefined)?.name;
      const absent = name === "NotFoundError" || name === "OverconstrainedError";
      this.ui.offerTyping(
        absent || !navigator.mediaDevices ? "no_microphone" : "microphone_refused",
      );
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

function explain(error: unknown): StringKey {
  if (!(error instanceof ApiError)) return "failed";
  if (error.status === 503) return "unavailable";
  if (error.status === 429) return "busy";
  return "failed";
}
