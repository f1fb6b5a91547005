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
import { AgentFunctions } from "./agent-functions.ts";
import { ApiError, type Api } from "./api.ts";
import { CallError, VoiceCall, type CallHandlers } from "./call.ts";
import type { CallbackFields } from "./callback-form.ts";
import { openMicrophone, stopMicrophone } from "./microphone.ts";
import { acceptNotice, choices, choose, clearSession, noticeAccepted } from "./storage.ts";
import { saveSession } from "./storage.ts";
import type { StringKey } from "./strings.ts";
import { newStoredSession, reportEnd, sendTurns } from "./session-report.ts";
import type { Mode, ProviderSession, StoredSession, Turn, WidgetConfig } from "./types.ts";
import type { WidgetUi } from "./ui.ts";

export class Conversation {
  private session: StoredSession | undefined;
  private call: VoiceCall | undefined;
  private microphone: MediaStream | undefined;
  private reconnected = false;
  private busy = false;
  /** What the visitor typed while the text conversation was connecting. */
  private unsaid: string[] = [];

  private readonly functions: AgentFunctions;

  constructor(
    private readonly api: Api,
    private readonly config: WidgetConfig,
    private readonly ui: WidgetUi,
  ) {
    this.functions = new AgentFunctions(api, ui, (turn) => this.record(turn));
  }

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

  /**
   * "Start talking" in the panel: a voice call, or the text conversation that is on goes on
   * aloud (the same session, resumed in voice). Without a microphone it stays in text.
   */
  async talk(): Promise<void> {
    const session = this.session;
    if (this.busy || session?.mode === "voice") return;
    if (session === undefined) {
      if ((await this.chosenMode("voice")) === "voice") await this.startVoice();
      return;
    }
    this.busy = true;
    try {
      const microphone = await openMicrophone();
      if (typeof microphone === "string") {
        this.ui.show("ready", microphone, "text");
        return;
      }
      this.call?.close();
      this.microphone = microphone;
      session.mode = "voice";
      choose(this.config.site_id, { mode: "voice" });
      this.save();
      this.ui.show("connecting", undefined, "voice");
      await this.connect(await this.api.resume(session, pageUrl(), "voice"));
    } catch (error) {
      await this.finish();
      this.ui.show("error", explain(error));
    } finally {
      this.busy = false;
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
  callback(fields: CallbackFields): Promise<boolean> {
    return this.functions.requestCallback(this.session, fields, pageUrl());
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
    this.session = newStoredSession(token, mode, pageUrl());
    this.save();
    return token;
  }

  private async connect(provider: ProviderSession): Promise<void> {
    const history = this.session?.turns ?? [];
    // Read once per conversation on this page (not per page view), while the call connects.
    void this.functions.crawledPages();
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
      functionCall: (call) => this.functions.run(this.session, call),
      lost: () => void this.lost(),
    };
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
    if (session !== undefined) await reportEnd(this.api, session);
  }

  private flushTurns(unloading = false): Promise<boolean> {
    const session = this.session;
    if (session === undefined) return Promise.resolve(true);
    return sendTurns(this.api, session, unloading, () => {
      if (session === this.session) this.save();
    });
  }

  /** The microphone, or false with the reason shown and typing offered. */
  private async openMicrophone(): Promise<boolean> {
    const microphone = await openMicrophone();
    if (typeof microphone === "string") {
      this.ui.offerTyping(microphone);
      return false;
    }
    this.microphone = microphone;
    return true;
  }

  private stopMicrophone(): void {
    stopMicrophone(this.microphone);
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
