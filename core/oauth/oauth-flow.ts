/**
 * Connecting a site's OAuth adapter: `start` makes the authorization URL, `finish` takes the
 * provider's callback. The `state` is `<site id>.<32 random bytes>`: the tenant it connects, and
 * enough randomness that it cannot be guessed; only its SHA-256 is stored, with the workspace and
 * site it binds, the PKCE verifier (sealed), who started it and the page to return to. It is good
 * for 10 minutes and used once. Who may finish is checked before it is used: a member's flow only
 * in that member's signed-in browser (so nobody can have a victim's account connected to their
 * site, or theirs to the victim's), and never in a browser signed in to another workspace.
 */
import { randomBytes } from "node:crypto";
import * as oauth from "oauth4webapi";
import { errors, type ServiceError } from "../errors.ts";
import { actorOf, type Principal } from "../auth/principal.ts";
import { seal, open, type KeyRing } from "../security/secret-box.ts";
import { hashToken } from "../security/token-hash.ts";
import type { SiteService } from "../sites/site-service.ts";
import type { Store } from "../store/store.ts";
import type { OAuthStateRow } from "../store/repos/oauth-repo.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import { adapterDestination } from "../sites/adapter-destination.ts";
import { providerError, type ResolvedProvider } from "./oauth-provider.ts";

/** How long a started authorization may be finished. */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;
/** How long past its expiry a state is kept, so that its callback says "expired" or "used". */
const STATE_KEPT_MS = 24 * 3600_000;

export interface OAuthFlowParts {
  store: Store;
  ring: KeyRing;
  sites: SiteService;
  plugins: PluginHost;
  provider: (type: string) => ResolvedProvider;
  /** `${PUBLIC_BASE_URL}/v1/oauth/callback`, registered with the provider. */
  redirectUri: string;
  now?: () => number;
}

/** Who opens the callback: the dashboard member signed in in that browser, if any. */
export interface CallbackBrowser {
  userId?: string;
  /** The workspaces that member belongs to. */
  workspaceIds?: readonly string[];
}

/** Why a callback did not connect, as the page it returns to words it. */
export type CallbackFailure =
  | "no_state"
  | "unknown_state"
  | "other_workspace"
  | "other_browser"
  | "state_used"
  | "state_expired"
  | "denied"
  | "provider_error"
  | "adapter_changed";

/**
 * A callback that cannot connect: why, the service error it is (its status and message), and the
 * page to show it on when the state was known.
 */
export class OAuthCallbackError extends Error {
  constructor(
    readonly reason: CallbackFailure,
    readonly error: ServiceError,
    readonly returnTo?: string,
  ) {
    super(error.message);
    this.name = "OAuthCallbackError";
  }
}

export class OAuthFlow {
  readonly #parts: OAuthFlowParts;
  readonly #now: () => number;

  constructor(parts: OAuthFlowParts) {
    this.#parts = parts;
    this.#now = parts.now ?? Date.now;
  }

  /**
   * The provider's authorization URL for the site's adapter, and when its state expires. The
   * site must have an adapter whose plugin declares `oauth`, with a client configured for it.
   */
  async start(
    principal: Principal,
    siteId: string,
    returnTo: string,
  ): Promise<{ authorization_url: string; expires_at: string }> {
    const site = await this.#parts.sites.openConfig(principal, siteId);
    if (site.adapter === undefined) {
      throw errors.validationFailed(`Site '${siteId}' has no data adapter to connect`, {
        field: "adapter",
      });
    }
    const provider = this.#parts.provider(site.adapter.type);
    const state = `${siteId}.${randomBytes(32).toString("base64url")}`;
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(provider.as.authorization_endpoint as string);
    const params = {
      ...provider.authorizationParams,
      client_id: provider.client.client_id,
      redirect_uri: this.#parts.redirectUri,
      response_type: "code",
      scope: provider.scopes.join(" "),
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const now = this.#now();
    // States only come from starts, so starts keep the table small: one a day past its expiry
    // is no longer told apart from an unknown one.
    await this.#parts.store.oauth.deleteStatesExpiredBefore(now - STATE_KEPT_MS);
    await this.#parts.store.oauth.insertState({
      state_hash: hashToken(state),
      workspace_id: principal.workspaceId,
      site_id: siteId,
      adapter_type: site.adapter.type,
      code_verifier: seal(this.#parts.ring, verifier),
      return_to: returnTo,
      started_by: principal.kind === "dashboard" ? `user:${principal.keyId}` : actorOf(principal),
      created_at: now,
      expires_at: now + OAUTH_STATE_TTL_MS,
      used_at: null,
    });
    return {
      authorization_url: url.href,
      expires_at: new Date(now + OAUTH_STATE_TTL_MS).toISOString(),
    };
  }

  /**
   * Finishes the authorization the callback's `query` answers: the state checked and used, the
   * code exchanged with the PKCE verifier, the tokens sealed and attached to the site. Returns
   * the site and the page to go back to; throws OAuthCallbackError otherwise.
   */
  async finish(
    query: Record<string, unknown>,
    browser: CallbackBrowser,
  ): Promise<{ siteId: string; returnTo: string }> {
    const state = typeof query.state === "string" ? query.state : undefined;
    if (state === undefined || state === "") {
      throw new OAuthCallbackError(
        "no_state",
        errors.invalidRequest("The callback has no state: start connecting again", {
          field: "state",
        }),
      );
    }
    const row = await this.#parts.store.oauth.state(hashToken(state));
    if (row === undefined) {
      throw new OAuthCallbackError(
        "unknown_state",
        errors.invalidToken(
          "This connection link is unknown or was altered: start connecting again",
        ),
      );
    }
    const fail = (reason: CallbackFailure, error: ServiceError) =>
      new OAuthCallbackError(reason, error, row.return_to);
    this.#checkBrowser(row, browser);
    const now = this.#now();
    if (row.used_at === null && row.expires_at <= now) {
      throw fail(
        "state_expired",
        errors.invalidToken(
          "This connection link expired (they last 10 minutes): start connecting again",
        ),
      );
    }
    // Used before, or by a request racing this one: the store lets one use win.
    if (row.used_at !== null || !(await this.#parts.store.oauth.useState(row.state_hash, now))) {
      throw fail(
        "state_used",
        errors.invalidToken("This connection link was used already: start connecting again"),
      );
    }
    const provider = this.#parts.provider(row.adapter_type);
    const tokens = await this.#exchange(provider, row, state, query).catch((error: unknown) => {
      const failure = providerError(error);
      throw failure.code === "access_denied"
        ? fail("denied", errors.forbidden("The connection was not allowed at the provider"))
        : fail(
            "provider_error",
            errors.adapterError(
              `the provider did not complete the connection: ${failure.message}`,
              {
                oauth: failure.code,
              },
            ),
          );
    });
    await this.#attach(row, tokens).catch((error: unknown) => {
      throw error instanceof OAuthCallbackError
        ? error
        : fail("adapter_changed", error as ServiceError);
    });
    return { siteId: row.site_id, returnTo: row.return_to };
  }

  /** Refuses a browser of another workspace, and a member's flow outside their own browser. */
  #checkBrowser(row: OAuthStateRow, browser: CallbackBrowser): void {
    if (browser.userId !== undefined && !browser.workspaceIds?.includes(row.workspace_id)) {
      throw new OAuthCallbackError(
        "other_workspace",
        errors.forbidden("This connection was started in a workspace you are not signed in to"),
      );
    }
    if (row.started_by.startsWith("user:") && row.started_by !== `user:${browser.userId}`) {
      throw new OAuthCallbackError(
        "other_browser",
        errors.forbidden(
          "Finish connecting in the browser, signed in as the member, that started it",
        ),
      );
    }
  }

  async #exchange(
    provider: ResolvedProvider,
    row: OAuthStateRow,
    state: string,
    query: Record<string, unknown>,
  ): Promise<oauth.TokenEndpointResponse> {
    const parameters = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (typeof value === "string") parameters.set(name, value);
    }
    // Throws the provider's own error (access_denied, …) when the callback carries one.
    const callback = oauth.validateAuthResponse(provider.as, provider.client, parameters, state);
    const response = await oauth.authorizationCodeGrantRequest(
      provider.as,
      provider.client,
      provider.clientAuth,
      callback,
      this.#parts.redirectUri,
      open(this.#parts.ring, row.code_verifier),
      { ...provider.http, signal: AbortSignal.timeout(10_000) },
    );
    return oauth.processAuthorizationCodeResponse(provider.as, provider.client, response);
  }

  /** Seals the tokens and makes them the site's connection, bound to its adapter's destination. */
  async #attach(row: OAuthStateRow, tokens: oauth.TokenEndpointResponse): Promise<void> {
    const { store, ring, sites, plugins } = this.#parts;
    const site = await sites.publicSite(row.site_id);
    const adapter = site?.site.adapter;
    if (adapter === undefined || adapter.type !== row.adapter_type) {
      throw errors.conflict(
        `Site '${row.site_id}' no longer has the ${row.adapter_type} adapter this connection was for`,
      );
    }
    const now = this.#now();
    await store.transaction((tx) =>
      tx.oauth.saveConnection({
        site_id: row.site_id,
        workspace_id: row.workspace_id,
        adapter_type: row.adapter_type,
        destination: adapterDestination(plugins, adapter.type, adapter.config),
        status: "connected",
        access_token: seal(ring, tokens.access_token),
        refresh_token: tokens.refresh_token === undefined ? null : seal(ring, tokens.refresh_token),
        token_type: tokens.token_type,
        scope: tokens.scope ?? null,
        expires_at: tokens.expires_in === undefined ? null : now + tokens.expires_in * 1000,
        failures: 0,
        retry_after: null,
        last_error: null,
        connected_at: now,
        refreshed_at: null,
        refresh_lock_until: null,
        refresh_lock_owner: null,
      }),
    );
  }
}
