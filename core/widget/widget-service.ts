/**
 * What the widget's calls do, behind the HTTP layer: mint a session with a voice-provider token,
 * record usage events (with the UsageEvent rules of SPEC.md), end sessions, capture leads and
 * keep transcripts. Everything that happens goes on the event bus.
 */
import crypto from "node:crypto";
import type { Logger } from "pino";
import type { EventBus, UsageEvent } from "../events/event-bus.ts";
import { errors } from "../errors.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import { buildPersonalityPrompt, type PromptTemplates } from "../intelligence/prompt.ts";
import type { Settings } from "../settings.ts";
import { hashToken } from "../security/token-hash.ts";
import { newId } from "../store/ids.ts";
import type { LeadRow } from "../store/repos/leads-repo.ts";
import type { SessionRow } from "../store/repos/sessions-repo.ts";
import type { Store } from "../store/store.ts";
import type { SiteConfig } from "../sites/site-types.ts";
import type { LeadCapture as LeadCreate } from "../types/generated/lead-create.ts";
import type { Transcript as TranscriptCreate } from "../types/generated/transcript-create.ts";
import type { UsageEventWrite } from "../types/generated/usage-event-write.ts";
import { SESSION_MAX_MS, type SessionService, type Visitor } from "./session-service.ts";
import { eventKey, replayKey } from "./replay-key.ts";
import { voiceProviderConfig } from "./voice-provider-config.ts";
import { buildVoiceTools } from "./voice-tools.ts";

/** How long the provider's ephemeral token may be used to connect. */
const EPHEMERAL_TOKEN_SECONDS = 600;
const PROVIDER_TIMEOUT_MS = 10_000;
const DAY_MS = 24 * 60 * 60_000;

export const LEAD_STATUSES = ["new", "contacted", "qualified", "won", "lost", "spam"] as const;

export interface PublicSite {
  site: SiteConfig;
  workspaceId: string;
  version: number;
}

export interface WidgetServiceParts {
  store: Store;
  sessions: SessionService;
  events: EventBus;
  plugins: PluginHost;
  settings: Pick<Readonly<Settings>, "voiceProvider" | "openai" | "pluginConfig">;
  logger: Logger;
  templates?: PromptTemplates;
  now?: () => number;
}

export class WidgetService {
  private readonly now: () => number;

  constructor(private readonly parts: WidgetServiceParts) {
    this.now = parts.now ?? Date.now;
  }

  /** POST /token: the provider's ephemeral token first, so a failing provider leaves no session. */
  async token(target: PublicSite, visitor: Visitor, pageUrl?: string) {
    const { site } = target;
    const voice = await this.providerSession(site);
    const { session, signingSecret } = await this.parts.sessions.create(
      { site_id: site.site_id, workspace_id: target.workspaceId },
      visitor,
      pageUrl,
    );
    await this.parts.events.recordUsage({
      site_id: site.site_id,
      session_id: session.id,
      type: "session_start",
      metadata: { session_id: session.id },
      client_event_id: `session_start:${session.id}`,
    });
    return {
      session_id: session.id,
      signing_secret: signingSecret,
      session_expires_at: new Date(session.created_at + SESSION_MAX_MS).toISOString(),
      ...voice,
    };
  }

  private async providerSession(site: SiteConfig) {
    const { type, config } = voiceProviderConfig(this.parts.settings);
    if (this.parts.plugins.find("voice-provider", type) === undefined) {
      throw errors.serviceUnavailable(`No voice-provider plugin "${type}" is installed`);
    }
    let provider;
    try {
      provider = await this.parts.plugins.instance("voice-provider", type, config, "global");
    } catch (error) {
      throw errors.serviceUnavailable(`The voice provider is not configured: ${messageOf(error)}`);
    }
    try {
      return await provider.createSession(
        {
          site_id: site.site_id,
          voice: site.voice,
          language: site.language,
          instructions: buildPersonalityPrompt(site, {
            now: new Date(this.now()),
            templates: this.parts.templates,
          }),
          tools: buildVoiceTools(site),
          expiresInSeconds: EPHEMERAL_TOKEN_SECONDS,
        },
        { signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) },
      );
    } catch (error) {
      // The provider's own words when it says why (no key, provider down); they hold no secret.
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof Error && cause.name === "VoiceProviderUnavailable") {
        throw errors.serviceUnavailable(cause.message, error);
      }
      this.parts.logger.warn({ err: error }, "voice provider failed");
      throw errors.serviceUnavailable("The voice provider failed to start a session", error);
    }
  }

  /**
   * POST /analytics/event. `session_start` and `session_end` count once per session whatever the
   * client sends; `session_end` gets its duration from the session's start and ends it. Any
   * other event is recorded once per key (see replay-key.ts): a copy answers the first event.
   */
  async recordEvent(
    session: SessionRow,
    body: UsageEventWrite,
    signedBody: Buffer,
  ): Promise<UsageEvent> {
    const metadata: Record<string, unknown> = { ...body.metadata };
    const clientId =
      typeof metadata.client_event_id === "string" ? metadata.client_event_id : undefined;
    delete metadata.client_event_id;
    const base = { site_id: session.site_id, session_id: session.id, metadata };
    switch (body.type) {
      case "session_start":
        return this.parts.events.recordUsage({
          ...base,
          type: "session_start",
          metadata: { ...metadata, session_id: session.id },
          client_event_id: `session_start:${session.id}`,
        });
      case "session_end":
        return this.endSession(session, "visitor", metadata);
      default:
        return this.parts.events.recordUsage({
          ...base,
          type: body.type,
          function_name: body.function_name,
          client_event_id: eventKey(session.id, signedBody, clientId),
        });
    }
  }

  /** Ends a session once: its session_end event, then `conversation.ended` on the bus. */
  async endSession(
    session: SessionRow,
    reason: string,
    metadata: Record<string, unknown> = {},
    at = this.now(),
  ): Promise<UsageEvent> {
    const ended = await this.parts.sessions.end(session.id, reason);
    const durationSeconds = Math.max(0, Math.round((at - session.created_at) / 10) / 100);
    const event = await this.parts.events.recordUsage({
      site_id: session.site_id,
      session_id: session.id,
      type: "session_end",
      duration_seconds: durationSeconds,
      metadata: { ...metadata, session_id: session.id, end_reason: reason },
      client_event_id: `session_end:${session.id}`,
    });
    if (ended) {
      await this.parts.events.emit({
        type: "conversation.ended",
        workspace_id: session.workspace_id,
        site_id: session.site_id,
        data: {
          session_id: session.id,
          site_id: session.site_id,
          user_fingerprint: session.user_fingerprint,
          duration_seconds: durationSeconds,
          reason,
          started_at: new Date(session.created_at).toISOString(),
          ended_at: new Date(at).toISOString(),
        },
      });
    }
    return event;
  }

  /** Ends the sessions that went idle or ran out of time, as if they had said session_end. */
  async sweep(): Promise<number> {
    let ended = 0;
    for (const session of await this.parts.sessions.expired()) {
      // An idle session ended when it was last seen, not now.
      const at = Math.min(session.last_seen_at, session.created_at + SESSION_MAX_MS);
      await this.endSession(session, "idle", {}, at);
      ended += 1;
    }
    await this.parts.sessions.forgetIps();
    await this.parts.store.leads.deleteExpiredTranscripts(this.now());
    return ended;
  }

  /**
   * POST /leads: an email or a phone is required (by the schema); `lead.captured` on the bus. The
   * same signed body again in the session is the same lead: answered with its id, announced once.
   */
  async captureLead(
    session: SessionRow,
    body: LeadCreate,
    signedBody: Buffer,
  ): Promise<{ lead_id: string }> {
    const at = this.now();
    const updateToken = `lt_${crypto.randomBytes(24).toString("base64url")}`;
    const row: LeadRow & { replay_key: string } = {
      id: newId("lead"),
      site_id: session.site_id,
      workspace_id: session.workspace_id,
      session_id: session.id,
      user_fingerprint: session.user_fingerprint,
      name: body.name ?? null,
      email: body.email ?? null,
      phone: body.phone ?? null,
      message: body.message ?? null,
      page_url: body.page_url ?? session.page_url,
      fields: body.fields === undefined ? null : JSON.stringify(body.fields),
      status: "new",
      notes: null,
      update_token_hash: hashToken(updateToken),
      replay_key: replayKey(session.id, "lead", signedBody),
      created_at: at,
      updated_at: at,
    };
    const stored = await this.parts.store.leads.insertOnce(row);
    if (stored.id !== row.id) return { lead_id: stored.id };
    await this.parts.events.emit({
      type: "lead.captured",
      workspace_id: row.workspace_id,
      site_id: row.site_id,
      data: { lead: leadView(row), update_token: updateToken },
      secrets: ["update_token"],
    });
    return { lead_id: row.id };
  }

  /**
   * POST /transcript: kept for the site's retention days; 0 keeps none. The same signed body again
   * in the session is kept once, and answered as the first was.
   */
  async saveTranscript(
    session: SessionRow,
    site: SiteConfig,
    body: TranscriptCreate,
    signedBody: Buffer,
  ) {
    const days = site.transcript_retention_days;
    if (days <= 0) return { stored: false };
    const at = this.now();
    await this.parts.store.leads.insertTranscriptOnce({
      id: newId("trn"),
      site_id: session.site_id,
      session_id: session.id,
      user_fingerprint: session.user_fingerprint,
      turns: JSON.stringify(body.turns),
      page_url: body.page_url ?? session.page_url,
      replay_key: replayKey(session.id, "transcript", signedBody),
      created_at: at,
      expires_at: at + days * DAY_MS,
    });
    return { stored: true };
  }

  /**
   * PATCH /v1/public/leads/:id with the lead's own update token or a key of its workspace;
   * `lead.updated` on the bus.
   */
  async updateLead(
    leadId: string,
    by: { token?: string; workspaceId?: string; siteIds?: ReadonlySet<string> },
    changes: { status?: string; notes?: string | null },
  ) {
    const row = await this.parts.store.leads.get(leadId);
    const allowed =
      row !== undefined &&
      (by.token !== undefined
        ? crypto.timingSafeEqual(
            Buffer.from(hashToken(by.token)),
            Buffer.from(row.update_token_hash),
          )
        : row.workspace_id === by.workspaceId && (by.siteIds?.has(row.site_id) ?? true));
    if (row === undefined || !allowed) {
      if (by.token !== undefined) throw errors.invalidToken();
      throw errors.notFound("Lead", leadId);
    }
    const updated = {
      status: changes.status ?? row.status,
      notes: changes.notes === undefined ? row.notes : changes.notes,
      updated_at: this.now(),
    };
    await this.parts.store.leads.update(leadId, updated);
    const lead = leadView({ ...row, ...updated });
    await this.parts.events.emit({
      type: "lead.updated",
      workspace_id: row.workspace_id,
      site_id: row.site_id,
      data: { lead, changes },
    });
    return lead;
  }
}

export function leadView(row: LeadRow) {
  return {
    id: row.id,
    site_id: row.site_id,
    session_id: row.session_id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    message: row.message,
    page_url: row.page_url,
    fields: row.fields === null ? {} : (JSON.parse(row.fields) as Record<string, string>),
    status: row.status,
    notes: row.notes,
    created_at: new Date(Number(row.created_at)).toISOString(),
    updated_at: new Date(Number(row.updated_at)).toISOString(),
  };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
