/**
 * The OAuth service on the service's parts, made the plugin host's source of `context.oauth`, so
 * every OAuth adapter instance made from now on gets its tokens from it.
 */
import type { Logger } from "pino";
import type { EventBus } from "../events/event-bus.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import { guardedFetch } from "../security/outbound-guard.ts";
import type { OutboundPolicy } from "../security/outbound-policy.ts";
import type { KeyRing } from "../security/secret-box.ts";
import type { Settings } from "../settings.ts";
import type { SiteService } from "../sites/site-service.ts";
import type { Store } from "../store/store.ts";
import { OAuthService } from "./oauth-service.ts";

export function composeOAuth(
  parts: { store: Store; ring: KeyRing; events: EventBus; sites: SiteService; plugins: PluginHost },
  context: { settings: Readonly<Settings>; logger: Logger; outbound: OutboundPolicy },
): OAuthService {
  const { settings, logger, outbound } = context;
  const service = new OAuthService({
    ...parts,
    logger,
    clients: settings.oauthClients,
    publicBaseUrl: settings.publicBaseUrl,
    // The operator's endpoints, yet still under the one outbound guard (a test's provider is on
    // 127.0.0.1, allowed only as the operator allows it).
    fetch: guardedFetch({ policy: outbound }) as unknown as typeof fetch,
  });
  parts.plugins.provideOAuth(service.accessFor);
  return service;
}
