/**
 * One call this instance controls through the voice provider's server-side connection
 * (core/host/call-control.ts), from joining until it is over or left:
 *
 * - it puts the session's instructions and tools, as minted, on the call when it joins, and again
 *   whenever the call's session is found changed by anyone else (the visitor's page);
 * - it stores the usage of each response as the provider confirms it (a response reported twice
 *   is stored once);
 * - it ends the call (hang-up) past the session's 2 hours, once the site is deleted, or once the
 *   widget session has ended; checked when it joins and every `checkMs`;
 * - a lost connection is joined again with growing waits; the provider saying the call is over
 *   ends it; the store lease is renewed while it runs, and a lease lost (another instance took
 *   the call after this one stalled) leaves the call to that instance.
 */
import type { Logger } from "pino";
import type {
  CallControl,
  CallEvents,
  ControlledSession,
  ResponseUsage,
} from "../host/call-control.ts";
import type { VoiceProvider } from "../host/plugin.ts";
import { newId } from "../store/ids.ts";
import type { VoiceCallRow } from "../store/repos/voice-calls-repo.ts";
import type { Store } from "../store/store.ts";
import { messageOf } from "../util/message-of.ts";
import { SESSION_MAX_MS } from "../widget/session-service.ts";
import { sameSession } from "./same-session.ts";

export interface ControlledCallParts {
  store: Store;
  /** Whether the site may still hold calls (it exists). */
  siteLives(siteId: string): Promise<boolean>;
  logger: Logger;
  now: () => number;
  /** This instance's name in the lease. */
  instance: string;
  timing: CallTiming;
}

export interface CallTiming {
  /** How long a lease runs; renewed at a third of it. */
  leaseMs: number;
  /** How often the limits are checked. */
  checkMs: number;
  /** The waits before each reconnect; past the last, the call is left. */
  reconnectMs: readonly number[];
  /** How long joining may take. */
  joinTimeoutMs: number;
}

export class ControlledCall {
  /** Times the call's session was found changed and put back. */
  reverts = 0;
  private control: CallControl | undefined;
  private done = false;
  /** Set once it hangs up: the connection's close that follows is not a loss. */
  private hangingUp = false;
  private attempts = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** The tools as the provider echoed them after this instance's last update. */
  private ours: ControlledSession | undefined;
  private expectingOurs = false;

  constructor(
    readonly call: VoiceCallRow,
    private readonly session: { id: string; created_at: number },
    /** What the session was minted with; undefined when not known (nothing is put back). */
    private readonly kept: ControlledSession | undefined,
    private readonly provider: VoiceProvider,
    private readonly parts: ControlledCallParts,
    /** Called once, when the call is over or left. */
    private readonly onDone: () => void,
  ) {}

  /** Joins the call and starts the lease and the checks; resolves once the first join settled. */
  async start(): Promise<void> {
    this.every(this.parts.timing.leaseMs / 3, () => this.renew());
    this.every(this.parts.timing.checkMs, () => this.checkLimits());
    await this.connect();
  }

  /** Leaves the call without ending it (the instance stops); the lease goes back. */
  async leave(reason: string): Promise<void> {
    if (this.finish()) return;
    this.parts.logger.info({ call_id: this.call.call_id, reason }, "left a controlled call");
    await this.parts.store.voiceCalls.release(this.call.call_id, this.parts.instance);
  }

  private async connect(): Promise<void> {
    if (this.done) return;
    let control: CallControl;
    try {
      control = await this.provider.controlCall!(this.call.call_id, this.events(), {
        signal: AbortSignal.timeout(this.parts.timing.joinTimeoutMs),
      });
    } catch (error) {
      if (isNamed(error, "CallEnded")) return this.ended("ended");
      // Not configured (no key): no retry will do better.
      if (isNamed(error, "VoiceProviderUnavailable")) {
        return this.leave(`the provider cannot control calls: ${messageOf(error)}`);
      }
      this.parts.logger.warn(
        { call_id: this.call.call_id, err: messageOf(error) },
        "could not join a call to control it",
      );
      return this.reconnectLater();
    }
    if (this.done) return control.close();
    this.control = control;
    this.attempts = 0;
    // From now on the session's cost comes from this call's usage (session-costs.ts).
    await this.parts.store.voiceCalls.markControlled(this.call.call_id, this.parts.now());
    if (this.kept !== undefined) await this.apply(control, this.kept);
    await this.checkLimits();
  }

  private events(): CallEvents {
    return {
      session: (current) => this.heardSession(current),
      usage: (usage) => void this.record(usage),
      closed: (reason) => {
        this.control = undefined;
        if (this.done || this.hangingUp) return;
        this.parts.logger.info({ call_id: this.call.call_id, reason }, "call control lost");
        this.reconnectLater();
      },
    };
  }

  private heardSession(current: ControlledSession): void {
    const kept = this.kept;
    if (kept === undefined) return;
    if (this.expectingOurs) {
      // The provider's echo of this instance's update: its own form of the tools.
      this.expectingOurs = false;
      if (current.instructions === kept.instructions) this.ours = current;
    }
    if (sameSession(current, kept, this.ours)) return;
    this.reverts += 1;
    this.parts.logger.warn(
      { call_id: this.call.call_id, site_id: this.call.site_id },
      "a call's instructions or tools were changed from outside; the site's put back",
    );
    const control = this.control;
    if (control !== undefined) void this.apply(control, kept);
  }

  private async apply(control: CallControl, session: ControlledSession): Promise<void> {
    this.expectingOurs = true;
    try {
      await control.apply(session);
    } catch (error) {
      this.parts.logger.warn(
        { call_id: this.call.call_id, err: messageOf(error) },
        "could not put the site's session on a call",
      );
    }
  }

  private async record(usage: ResponseUsage): Promise<void> {
    try {
      await this.parts.store.callUsage.record({
        id: newId("cus"),
        call_id: this.call.call_id,
        response_id: usage.response_id,
        session_id: this.session.id,
        model: usage.model,
        input_text: usage.input.text,
        input_audio: usage.input.audio,
        input_image: usage.input.image,
        cached_text: usage.cached.text,
        cached_audio: usage.cached.audio,
        cached_image: usage.cached.image,
        output_text: usage.output.text,
        output_audio: usage.output.audio,
        created_at: this.parts.now(),
      });
    } catch (error) {
      this.parts.logger.error(
        { call_id: this.call.call_id, response_id: usage.response_id, err: messageOf(error) },
        "a response's usage was not stored",
      );
    }
  }

  /** Ends the call when a limit says so. */
  private async checkLimits(): Promise<void> {
    if (this.done) return;
    try {
      if (this.parts.now() >= this.session.created_at + SESSION_MAX_MS) {
        return await this.hangUp("limit");
      }
      if (!(await this.parts.siteLives(this.call.site_id)))
        return await this.hangUp("site_deleted");
      const session = await this.parts.store.sessions.get(this.session.id);
      if (session === undefined || session.ended_at !== null) {
        return await this.hangUp("session_ended");
      }
    } catch (error) {
      this.parts.logger.warn(
        { call_id: this.call.call_id, err: messageOf(error) },
        "a call's limits could not be checked",
      );
    }
  }

  private async hangUp(reason: string): Promise<void> {
    if (this.hangingUp) return;
    this.hangingUp = true;
    const control = this.control;
    this.parts.logger.info({ call_id: this.call.call_id, reason }, "ending a controlled call");
    if (control !== undefined) {
      try {
        await control.hangUp();
      } catch (error) {
        this.parts.logger.warn(
          { call_id: this.call.call_id, err: messageOf(error) },
          "the provider did not hang up a call",
        );
      }
    }
    await this.ended(reason);
  }

  private async ended(reason: string): Promise<void> {
    if (this.finish()) return;
    await this.parts.store.voiceCalls.end(this.call.call_id, this.parts.now(), reason);
  }

  private reconnectLater(): void {
    const wait = this.parts.timing.reconnectMs[this.attempts];
    if (wait === undefined) {
      void this.leave("the provider could not be reached again");
      return;
    }
    this.attempts += 1;
    this.later(wait, () => this.connect());
  }

  private async renew(): Promise<void> {
    if (this.done) return;
    const now = this.parts.now();
    const { call_id: callId } = this.call;
    try {
      const ours = await this.parts.store.voiceCalls.lease(
        callId,
        this.parts.instance,
        now,
        now + this.parts.timing.leaseMs,
      );
      if (!ours) await this.leave("another instance holds the call, or it is over");
    } catch (error) {
      this.parts.logger.warn({ call_id: callId, err: messageOf(error) }, "lease not renewed");
    }
  }

  /** Stops everything; true when it was stopped already. */
  private finish(): boolean {
    if (this.done) return true;
    this.done = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.control?.close();
    this.control = undefined;
    this.onDone();
    return false;
  }

  private every(ms: number, work: () => Promise<void>): void {
    const timer = setInterval(() => void work(), ms);
    timer.unref();
    this.timers.add(timer);
  }

  private later(ms: number, work: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void work();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }
}

/**
 * Whether `error`, or the plugin error it was wrapped in, is the contract's `name` (CallEnded,
 * VoiceProviderUnavailable): by name, as a provider may load its own copy of the contract.
 */
function isNamed(error: unknown, name: string): boolean {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return (error as Error | undefined)?.name === name || (cause as Error | undefined)?.name === name;
}
