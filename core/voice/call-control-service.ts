/**
 * The calls this instance controls (controlled-call.ts). A call reported by the widget is joined
 * by the instance that received the report, once it holds the call's lease in the store: a
 * second instance (a repeated report, the adoption job) never joins a call another holds. Calls
 * whose instance stopped holding them (it died) are adopted by the `voice.calls-adopt` job.
 * A provider without `controlCall` leaves its calls alone.
 */
import crypto from "node:crypto";
import os from "node:os";
import type { Logger } from "pino";
import type { PluginHost } from "../host/plugin-host.ts";
import type { ControlledSession } from "../host/call-control.ts";
import type { VoiceProvider } from "../host/plugin.ts";
import type { Settings } from "../settings.ts";
import type { VoiceCallRow } from "../store/repos/voice-calls-repo.ts";
import type { Store } from "../store/store.ts";
import { messageOf } from "../util/message-of.ts";
import { voiceProviderConfig } from "../widget/voice-provider-config.ts";
import { SESSION_MAX_MS } from "../widget/session-service.ts";
import { ControlledCall, type CallTiming } from "./controlled-call.ts";

export interface CallControlParts {
  store: Store;
  plugins: PluginHost;
  settings: Pick<Readonly<Settings>, "voiceProvider" | "openai" | "pluginConfig" | "calls">;
  /** Whether a site still exists (read through the site cache). */
  siteLives(siteId: string): Promise<boolean>;
  logger: Logger;
  now?: () => number;
}

export const DEFAULT_CALL_TIMING: Omit<CallTiming, "checkMs"> = {
  leaseMs: 60_000,
  reconnectMs: [250, 500, 1_000, 2_000, 4_000, 8_000, 15_000, 30_000, 30_000, 30_000],
  joinTimeoutMs: 10_000,
};

export class CallControlService {
  /** This instance's name in call leases. */
  readonly instance = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString("hex")}`;
  private readonly calls = new Map<string, ControlledCall>();
  private readonly joining = new Map<string, Promise<boolean>>();
  private readonly now: () => number;
  private stopped = false;

  constructor(
    private readonly parts: CallControlParts,
    private readonly timing: CallTiming = {
      ...DEFAULT_CALL_TIMING,
      checkMs: parts.settings.calls.checkMs,
    },
  ) {
    this.now = parts.now ?? Date.now;
  }

  /** The call of `callId` this instance controls, if it does. */
  controlled(callId: string): ControlledCall | undefined {
    return this.calls.get(callId);
  }

  /**
   * Joins `call` unless this instance controls it already, another holds its lease, the call is
   * over, or the provider cannot control calls; whether this instance now controls it. Never
   * throws: a failure is logged.
   */
  join(call: VoiceCallRow): Promise<boolean> {
    const known = this.joining.get(call.call_id);
    if (known !== undefined) return known;
    const joined = this.#join(call)
      .catch((error: unknown) => {
        this.parts.logger.warn(
          { call_id: call.call_id, err: messageOf(error) },
          "could not control a call",
        );
        return false;
      })
      .finally(() => this.joining.delete(call.call_id));
    this.joining.set(call.call_id, joined);
    return joined;
  }

  /** Joins the calls whose instance stopped holding them; how many it joined. */
  async adoptOrphans(): Promise<number> {
    const now = this.now();
    let adopted = 0;
    for (const call of await this.parts.store.voiceCalls.orphaned(now, now - SESSION_MAX_MS, 100)) {
      if (await this.join(call)) adopted += 1;
    }
    return adopted;
  }

  /** Leaves every call (their leases go back, for another instance to adopt). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled(this.joining.values());
    await Promise.all([...this.calls.values()].map((call) => call.leave("the instance stops")));
  }

  async #join(call: VoiceCallRow): Promise<boolean> {
    if (this.stopped || this.calls.has(call.call_id)) return this.calls.has(call.call_id);
    const provider = await this.#provider();
    if (provider?.controlCall === undefined) return false;
    const session = await this.parts.store.sessions.get(call.session_id);
    if (session === undefined || session.ended_at !== null) return false;
    const now = this.now();
    const { instance } = this;
    const leased = await this.parts.store.voiceCalls.lease(
      call.call_id,
      instance,
      now,
      now + this.timing.leaseMs,
    );
    if (!leased) return false;
    const controlled = new ControlledCall(
      call,
      session,
      keptSession(session.provider_session),
      provider,
      {
        store: this.parts.store,
        siteLives: this.parts.siteLives,
        logger: this.parts.logger,
        now: this.now,
        instance,
        timing: this.timing,
      },
      () => this.calls.delete(call.call_id),
    );
    this.calls.set(call.call_id, controlled);
    await controlled.start();
    // Left already when the provider could not control it, or over at once.
    return this.calls.has(call.call_id);
  }

  /** The configured voice provider's instance, undefined when it cannot be made. */
  async #provider(): Promise<VoiceProvider | undefined> {
    const { type, config } = voiceProviderConfig(this.parts.settings);
    if (this.parts.plugins.find("voice-provider", type) === undefined) return undefined;
    return this.parts.plugins.instance("voice-provider", type, config, "global");
  }
}

/** The session's minted instructions and tools, if it kept them (sessions made before 016 did not). */
function keptSession(json: string | null | undefined): ControlledSession | undefined {
  if (json === null || json === undefined) return undefined;
  return JSON.parse(json) as ControlledSession;
}
