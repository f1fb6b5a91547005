/**
 * The voice sessions' parts, composed in one place (for the composition root): tokens and
 * resumptions, usage events, the calls widgets report, their control from the server, and the
 * costs of the sessions controlled.
 */
import type { Logger } from "pino";
import type { EventBus } from "../events/event-bus.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import type { KnowledgeReader } from "../intelligence/knowledge/knowledge-types.ts";
import type { PromptTemplates } from "../intelligence/prompt-templates.ts";
import type { SiteIntelligenceService } from "../intelligence/site-intelligence-service.ts";
import type { Settings } from "../settings.ts";
import type { SiteService } from "../sites/site-service.ts";
import type { Store } from "../store/store.ts";
import { CallService } from "../widget/call-service.ts";
import type { SessionService } from "../widget/session-service.ts";
import { TokenService } from "../widget/token-service.ts";
import { UsageService } from "../widget/usage-service.ts";
import { CallControlService } from "./call-control-service.ts";
import { SessionCosts } from "./session-costs.ts";

export function composeVoice(
  parts: {
    store: Store;
    events: EventBus;
    sessions: SessionService;
    sites: SiteService;
    plugins: PluginHost;
    templates: PromptTemplates;
    intelligence: SiteIntelligenceService;
    knowledge: Pick<KnowledgeReader, "stats">;
  },
  env: { settings: Readonly<Settings>; logger: Logger; closers: (() => Promise<void> | void)[] },
) {
  const { store, events, sessions, sites, plugins } = parts;
  const { settings, logger } = env;
  const callControl = new CallControlService({
    store,
    plugins,
    settings,
    siteLives: async (siteId) => (await sites.publicSite(siteId)) !== undefined,
    logger,
  });
  // Left before the plugins close: a call's lease goes back for another instance.
  env.closers.push(() => callControl.stop());
  return {
    tokens: new TokenService({
      sessions,
      events,
      plugins,
      settings,
      logger,
      templates: parts.templates,
      intelligence: parts.intelligence,
      knowledge: parts.knowledge,
    }),
    usage: new UsageService({ events, sessions }),
    calls: new CallService({ store, control: callControl }),
    callControl,
    sessionCosts: new SessionCosts({ store, events, prices: settings.voicePrices, logger }),
  };
}
