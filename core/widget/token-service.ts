/**
 * `POST /v1/:siteId/token`: a voice-provider session for the site (its prompt with the pages of
 * its latest crawl, and its tools, scroll_to taking the crawled section ids, search_site when its
 * knowledge holds passages), spoken or typed as the visitor's mode says, and a widget session
 * with its signing secret, the provider first, so a failing provider leaves no session behind.
 */
import type { Logger } from "pino";
import { errors } from "../errors.ts";
import type { EventBus } from "../events/event-bus.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import type { ControlledSession } from "../host/call-control.ts";
import type { VoiceSessionRequest } from "../host/plugin.ts";
import { buildPersonalityPrompt } from "../intelligence/prompt.ts";
import type { KnowledgeReader } from "../intelligence/knowledge/knowledge-types.ts";
import type { PromptTemplates } from "../intelligence/prompt-templates.ts";
import type { SessionView } from "../intelligence/site-intelligence-types.ts";
import type { Settings } from "../settings.ts";
import type { PublicSite, SiteConfig } from "../sites/site-types.ts";
import type { SessionRow } from "../store/repos/sessions-repo.ts";
import type { SessionResumption } from "../types/generated/session-resume.ts";
import type { TokenRequest } from "../types/generated/token-create.ts";
import { messageOf } from "../util/message-of.ts";
import { SESSION_MAX_MS, type SessionService, type Visitor } from "./session-service.ts";
import { voiceProviderConfig } from "./voice-provider-config.ts";
import { buildVoiceTools } from "./voice-tools.ts";

/** What a session learns of the site's crawl: its pages and sections, and whether it has knowledge. */
type Crawled = SessionView & { knowledge: boolean };

/** How long the provider's ephemeral token may be used to connect. */
const EPHEMERAL_TOKEN_SECONDS = 600;
const PROVIDER_TIMEOUT_MS = 10_000;

export interface TokenServiceParts {
  sessions: SessionService;
  events: EventBus;
  plugins: PluginHost;
  settings: Pick<Readonly<Settings>, "voiceProvider" | "openai" | "pluginConfig">;
  logger: Logger;
  templates: PromptTemplates;
  /** The latest crawl's pages and section ids (SiteIntelligenceService). */
  intelligence: { sessionView(site: SiteConfig, pageUrl?: string): Promise<SessionView> };
  /** What the site's knowledge holds: search_site is offered when it holds passages. */
  knowledge: Pick<KnowledgeReader, "stats">;
  now?: () => number;
}

export class TokenService {
  private readonly now: () => number;

  constructor(private readonly parts: TokenServiceParts) {
    this.now = parts.now ?? Date.now;
  }

  /**
   * A provider session in the visitor's mode, then a widget session and its `session_start`
   * usage event. A callback session (the "Talk to a person" form) is there to sign a lead, so it
   * asks the provider for nothing and is answered without one; it is refused on a site that
   * takes no leads. Its secret signs what any session's does, within the same limits.
   */
  async token(target: PublicSite, visitor: Visitor, request: TokenRequest) {
    const { site } = target;
    const { page_url: pageUrl, mode = "voice" } = request;
    if (mode === "callback" && !site.lead_capture.enabled) {
      throw errors.validationFailed("This site takes no leads: its lead capture is off", {
        field: "mode",
      });
    }
    const provider =
      mode === "callback"
        ? undefined
        : await this.providerSession(site, mode, await this.crawled(site, pageUrl));
    const { session, signingSecret } = await this.parts.sessions.create(
      { site_id: site.site_id, workspace_id: target.workspaceId },
      visitor,
      pageUrl,
      provider?.kept,
    );
    await this.parts.events.recordUsage({
      site_id: site.site_id,
      session_id: session.id,
      type: "session_start",
      metadata: { session_id: session.id, mode },
      client_event_id: `session_start:${session.id}`,
    });
    return {
      session_id: session.id,
      signing_secret: signingSecret,
      // What the visitor quotes to ask the business for their data (the privacy notice shows it).
      user_fingerprint: session.user_fingerprint,
      session_expires_at: new Date(session.created_at + SESSION_MAX_MS).toISOString(),
      mode,
      ...provider?.voice,
    };
  }

  /**
   * A new provider session for a widget session that goes on (`POST /v1/:siteId/session/resume`,
   * signed): after a refresh, on another page of the site, or after a lost connection, in the
   * mode asked for (a callback session may become a conversation). The session, its secret and
   * its usage stay as they were.
   */
  async resume(target: PublicSite, session: SessionRow, request: SessionResumption) {
    const { site } = target;
    const { page_url: pageUrl, mode = "voice" } = request;
    const { voice, kept } = await this.providerSession(
      site,
      mode,
      await this.crawled(site, pageUrl),
    );
    await this.parts.sessions.keepProviderSession(session.id, kept);
    return {
      session_id: session.id,
      session_expires_at: new Date(session.created_at + SESSION_MAX_MS).toISOString(),
      mode,
      ...voice,
    };
  }

  /**
   * The pages the session is told about, the sections scroll_to may name, and whether the site's
   * knowledge is searched. What cannot be read is left out (scroll_to then takes any id, as before
   * the crawler; search_site is not offered): it never stops a session.
   */
  private async crawled(site: SiteConfig, pageUrl?: string): Promise<Crawled> {
    const warn = (error: unknown, what: string) => {
      this.parts.logger.warn(
        { err: error, site_id: site.site_id },
        `${what} not read for a voice session`,
      );
    };
    const [view, knowledge] = await Promise.all([
      this.parts.intelligence.sessionView(site, pageUrl).catch((error: unknown) => {
        warn(error, "crawled pages");
        return { pages: [], sectionIds: [], allSectionIds: true };
      }),
      this.parts.knowledge.stats(site.site_id).then(
        (stats) => stats.passages > 0,
        (error: unknown) => {
          warn(error, "site knowledge");
          return false;
        },
      ),
    ]);
    return { ...view, knowledge };
  }

  private async providerSession(
    site: SiteConfig,
    mode: VoiceSessionRequest["mode"],
    crawled: Crawled,
  ) {
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
    // What the session is minted with, and what the service keeps on its calls (core/voice/).
    const kept: ControlledSession = {
      instructions: buildPersonalityPrompt(site, {
        now: new Date(this.now()),
        templates: this.parts.templates,
        pages: crawled.pages,
        knowledge: crawled.knowledge,
        textMode: mode === "text",
      }),
      tools: buildVoiceTools(site, {
        sectionIds: crawled.sectionIds,
        allSectionIds: crawled.allSectionIds,
        knowledge: crawled.knowledge,
      }),
    };
    try {
      const voice = await provider.createSession(
        {
          site_id: site.site_id,
          voice: site.voice,
          language: site.language,
          mode,
          ...kept,
          expiresInSeconds: EPHEMERAL_TOKEN_SECONDS,
        },
        { signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) },
      );
      return { voice, kept };
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
}
