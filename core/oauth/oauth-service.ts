/**
 * The OAuth connections of sites, as the API and the dashboard use them: start and finish the
 * flow (oauth-flow.ts), read where a connection stands, disconnect it (revoked at the provider
 * where it can be), and the token keeper adapters get their tokens from (oauth-tokens.ts).
 */
import type { Logger } from "pino";
import * as oauth from "oauth4webapi";
import type { Principal } from "../auth/principal.ts";
import { errors } from "../errors.ts";
import type { EventBus } from "../events/event-bus.ts";
import type { OAuthAccessFor } from "../host/plugin-instances.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import { open, type KeyRing } from "../security/secret-box.ts";
import { adapterDestination } from "../sites/adapter-destination.ts";
import type { SiteService } from "../sites/site-service.ts";
import type { Store } from "../store/store.ts";
import type { OAuthClientSettings } from "./oauth-client-settings.ts";
import { OAuthFlow } from "./oauth-flow.ts";
import { oauthBlockOf, providerError, resolveProvider } from "./oauth-provider.ts";
import { OAuthTokens } from "./oauth-tokens.ts";

export interface OAuthServiceParts {
  store: Store;
  ring: KeyRing;
  events: EventBus;
  sites: SiteService;
  plugins: PluginHost;
  logger: Logger;
  clients: Readonly<Record<string, OAuthClientSettings>>;
  publicBaseUrl: string;
  /** The guarded fetch every request to a provider goes through. */
  fetch: typeof fetch;
  now?: () => number;
}

/** `GET /v1/sites/:id/oauth`: where the site's connection stands; never a token. */
export interface OAuthConnectionView {
  site_id: string;
  adapter_type: string;
  status: "connected" | "reauth_required" | "not_connected";
  scope: string | null;
  /** When the access token expires (it is refreshed before); null when unknown or unconnected. */
  expires_at: string | null;
  connected_at: string | null;
  refreshed_at: string | null;
  /** Why it must be reconnected, or why the last refresh failed. */
  last_error: string | null;
}

const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());

export class OAuthService {
  readonly flow: OAuthFlow;
  readonly tokens: OAuthTokens;
  readonly #parts: OAuthServiceParts;

  constructor(parts: OAuthServiceParts) {
    this.#parts = parts;
    const provider = (type: string) =>
      resolveProvider(parts.plugins, parts.clients, type, parts.fetch);
    this.flow = new OAuthFlow({
      ...parts,
      provider,
      redirectUri: `${parts.publicBaseUrl}/v1/oauth/callback`,
    });
    this.tokens = new OAuthTokens({ ...parts, provider });
  }

  /** What the plugin host gives an OAuth adapter's instance as `context.oauth`. */
  readonly accessFor: OAuthAccessFor = ({ plugin, scope, config }) =>
    this.tokens.access({
      siteId: scope,
      destination: adapterDestination(this.#parts.plugins, plugin.type ?? plugin.name, config),
    });

  async status(principal: Principal, siteId: string): Promise<OAuthConnectionView> {
    const type = await this.#oauthType(principal, siteId);
    const row = await this.#parts.store.oauth.connection(siteId);
    return {
      site_id: siteId,
      adapter_type: type,
      status: row === undefined || row.adapter_type !== type ? "not_connected" : row.status,
      scope: row?.scope ?? null,
      expires_at: iso(row?.expires_at),
      connected_at: iso(row?.connected_at),
      refreshed_at: iso(row?.refreshed_at),
      last_error: row?.last_error ?? null,
    };
  }

  /**
   * Deletes the site's tokens, revoking the grant at the provider first where it has a
   * revocation endpoint (RFC 7009). `revoked` is null when it has none, false when the
   * revocation failed (the tokens are deleted all the same).
   */
  async disconnect(principal: Principal, siteId: string): Promise<{ revoked: boolean | null }> {
    await this.#parts.sites.assertOwned(principal, siteId);
    const { store, ring, logger } = this.#parts;
    const row = await store.oauth.connection(siteId);
    if (row === undefined) throw errors.notFound("OAuth connection of site", siteId);
    let revoked: boolean | null = null;
    try {
      const provider = resolveProvider(
        this.#parts.plugins,
        this.#parts.clients,
        row.adapter_type,
        this.#parts.fetch,
      );
      if (provider.as.revocation_endpoint !== undefined) {
        const token = open(ring, row.refresh_token ?? row.access_token);
        const response = await oauth.revocationRequest(
          provider.as,
          provider.client,
          provider.clientAuth,
          token,
          {
            ...provider.http,
            additionalParameters: {
              token_type_hint: row.refresh_token === null ? "access_token" : "refresh_token",
            },
            signal: AbortSignal.timeout(10_000),
          },
        );
        await oauth.processRevocationResponse(response);
        revoked = true;
      }
    } catch (error) {
      revoked = false;
      logger.warn(
        { site_id: siteId, error: providerError(error).message },
        "OAuth revocation failed",
      );
    }
    await store.oauth.deleteConnection(siteId);
    return { revoked };
  }

  /** The site's adapter type, which must connect with OAuth (422 otherwise). */
  async #oauthType(principal: Principal, siteId: string): Promise<string> {
    const site = await this.#parts.sites.openConfig(principal, siteId);
    const type = site.adapter?.type;
    if (type === undefined || oauthBlockOf(this.#parts.plugins, type) === undefined) {
      throw errors.validationFailed(`Site '${siteId}' has no adapter that connects with OAuth`, {
        field: "adapter.type",
      });
    }
    return type;
  }
}
