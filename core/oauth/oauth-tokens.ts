/**
 * The token keeper: what `context.oauth.accessToken()` answers for a site. A token within 15
 * minutes of expiry (or one the provider's API just refused) is refreshed first, under the
 * store's lease on the connection: the instance that takes it re-reads the connection (another
 * may have refreshed meanwhile), calls the token endpoint, and writes the new access token with
 * the rotated refresh token in one conditional update; the others wait for the lease to go and
 * read what it wrote. Within an instance concurrent callers share one attempt. So however many
 * instances and searches ask at once, the provider sees one refresh.
 *
 * A refresh the provider refuses (`invalid_grant`: revoked, expired, already used) marks the
 * connection `reauth_required` at once, other failures after MAX_REFRESH_FAILURES in a row (one
 * tried every REFRESH_RETRY_MS at most, the old token serving meanwhile while it lasts); the
 * change sends one `adapter.error` event. Searches then get 422 adapter_error naming it until the
 * business reconnects.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import * as oauth from "oauth4webapi";
import { errors, isServiceError } from "../errors.ts";
import type { EventBus } from "../events/event-bus.ts";
import { OAUTH_REFRESH_WINDOW_SECONDS, type OAuthAccess } from "../host/oauth-contract.ts";
import { open, seal, type KeyRing } from "../security/secret-box.ts";
import type { OAuthConnectionRow } from "../store/repos/oauth-repo.ts";
import type { Store } from "../store/store.ts";
import { providerError, type ResolvedProvider } from "./oauth-provider.ts";

/** Failed refreshes in a row (other than a refused grant) after which the business must reconnect. */
export const MAX_REFRESH_FAILURES = 3;
/** How long the lease of a refresh lasts: past it another instance may take over. */
const LEASE_MS = 15_000;
/** How long a refresh call may take. */
const REFRESH_TIMEOUT_MS = 8_000;
/**
 * After a failed refresh, how long an access token that still serves is used without trying
 * again: each search does not call a provider that is down, and "failures in a row" span time.
 */
export const REFRESH_RETRY_MS = 30_000;
/** How often an instance waiting for another's refresh looks again. */
const POLL_MS = 50;

export interface OAuthTokensParts {
  store: Store;
  ring: KeyRing;
  events: EventBus;
  logger: Logger;
  /** The provider of an adapter type (resolveProvider, with the settings and the guard). */
  provider: (type: string) => ResolvedProvider;
  now?: () => number;
}

/** Where a site's adapter instance stands: its site and the destination of its config. */
export interface TokenScope {
  siteId: string;
  destination: string;
}

export class OAuthTokens {
  readonly #parts: OAuthTokensParts;
  readonly #now: () => number;
  /** One refresh attempt per site at a time in this instance, shared by its callers. */
  readonly #refreshing = new Map<string, Promise<string>>();
  readonly #owner = randomUUID();

  constructor(parts: OAuthTokensParts) {
    this.#parts = parts;
    this.#now = parts.now ?? Date.now;
  }

  /** The `context.oauth` of an adapter instance serving `scope`. */
  access(scope: TokenScope): OAuthAccess {
    return { accessToken: (options) => this.accessToken(scope, options?.rejected) };
  }

  /** A valid access token of the site's connection (see the module comment). */
  async accessToken(scope: TokenScope, rejected?: string): Promise<string> {
    const connection = this.#usable(await this.#parts.store.oauth.connection(scope.siteId), scope);
    const token = open(this.#parts.ring, connection.access_token);
    if (token !== rejected && (this.#fresh(connection) || this.#waiting(connection))) return token;
    let attempt = this.#refreshing.get(scope.siteId);
    if (attempt === undefined) {
      attempt = this.#refreshUnderLease(scope, connection.generation, rejected).finally(() =>
        this.#refreshing.delete(scope.siteId),
      );
      this.#refreshing.set(scope.siteId, attempt);
    }
    return attempt;
  }

  /** The connection, if searches may use it; else the adapter_error that says why not. */
  #usable(connection: OAuthConnectionRow | undefined, scope: TokenScope): OAuthConnectionRow {
    const { siteId } = scope;
    if (connection === undefined) {
      throw errors.adapterError(
        `site '${siteId}' is not connected to its data source yet: connect it in the dashboard (or POST /v1/sites/${siteId}/oauth/start)`,
        { oauth: "not_connected" },
      );
    }
    if (connection.status === "reauth_required" || connection.destination !== scope.destination) {
      const why =
        connection.status === "reauth_required"
          ? (connection.last_error ?? "the provider refused the grant")
          : "the adapter config now points elsewhere than when it was connected";
      throw errors.adapterError(
        `the OAuth connection of site '${siteId}' must be reconnected (reauth_required): ${why}`,
        { oauth: "reauth_required" },
      );
    }
    return connection;
  }

  /** A failed refresh is recent and the token it failed to replace still serves: keep it. */
  #waiting(connection: OAuthConnectionRow): boolean {
    const now = this.#now();
    const { retry_after, expires_at } = connection;
    return retry_after !== null && retry_after > now && expires_at !== null && expires_at > now;
  }

  #fresh(connection: OAuthConnectionRow): boolean {
    const { expires_at } = connection;
    return expires_at === null || expires_at - this.#now() > OAUTH_REFRESH_WINDOW_SECONDS * 1000;
  }

  /**
   * Refreshes the tokens of `generation` (the stale ones this instance saw, or the one the API
   * `rejected`) unless another instance did first: takes the lease, or waits for whoever holds it.
   */
  async #refreshUnderLease(
    scope: TokenScope,
    generation: number,
    rejected: string | undefined,
  ): Promise<string> {
    const { store, ring } = this.#parts;
    const started = this.#now();
    for (;;) {
      const now = this.#now();
      if (await store.oauth.takeRefreshLock(scope.siteId, this.#owner, now, now + LEASE_MS)) {
        try {
          const current = this.#usable(await store.oauth.connection(scope.siteId), scope);
          // Refreshed by another instance since this one saw the stale token (use that), or
          // another just failed to (the old one still serves).
          const token = open(ring, current.access_token);
          const usable =
            current.generation !== generation ? this.#fresh(current) : this.#waiting(current);
          if (usable && token !== rejected) return token;
          return await this.#refresh(scope, current);
        } finally {
          await store.oauth.releaseRefreshLock(scope.siteId, this.#owner);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const current = this.#usable(await store.oauth.connection(scope.siteId), scope);
      if (current.generation !== generation && this.#fresh(current)) {
        return open(ring, current.access_token);
      }
      if (this.#now() - started > LEASE_MS + REFRESH_TIMEOUT_MS) {
        throw errors.adapterError("the OAuth token refresh did not finish in time");
      }
    }
  }

  /** One call to the token endpoint for the tokens of `connection`, and what follows from it. */
  async #refresh(scope: TokenScope, connection: OAuthConnectionRow): Promise<string> {
    const { store, ring, logger } = this.#parts;
    if (connection.refresh_token === null) {
      return this.#requireReauth(
        connection,
        "the access token expired and the provider gave no refresh token",
      );
    }
    const provider = this.#parts.provider(connection.adapter_type);
    let tokens: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.refreshTokenGrantRequest(
        provider.as,
        provider.client,
        provider.clientAuth,
        open(ring, connection.refresh_token),
        { ...provider.http, signal: AbortSignal.timeout(REFRESH_TIMEOUT_MS) },
      );
      tokens = await oauth.processRefreshTokenResponse(provider.as, provider.client, response);
    } catch (error) {
      if (isServiceError(error)) throw error;
      const failure = providerError(error);
      logger.warn({ site_id: scope.siteId, error: failure.code }, "OAuth refresh failed");
      if (failure.code === "invalid_grant") return this.#requireReauth(connection, failure.message);
      return this.#failed(connection, failure.message);
    }
    const at = this.#now();
    const written = await store.oauth.refreshed(
      connection.site_id,
      connection.generation,
      {
        access_token: seal(ring, tokens.access_token),
        // A provider that rotates sends a new one; one that does not keeps the old valid.
        refresh_token:
          tokens.refresh_token === undefined
            ? connection.refresh_token
            : seal(ring, tokens.refresh_token),
        token_type: tokens.token_type,
        scope: tokens.scope ?? connection.scope,
        expires_at: tokens.expires_in === undefined ? null : at + tokens.expires_in * 1000,
      },
      at,
    );
    if (!written) {
      // Reconnected or disconnected during the call: what stands now decides.
      return this.accessToken(scope);
    }
    return tokens.access_token;
  }

  /** A refresh that failed for a reason other than a refused grant. */
  async #failed(connection: OAuthConnectionRow, message: string): Promise<string> {
    const { store, ring } = this.#parts;
    const failures = await store.oauth.refreshFailed(
      connection.site_id,
      connection.generation,
      message,
      this.#now() + REFRESH_RETRY_MS,
    );
    if (failures >= MAX_REFRESH_FAILURES) {
      return this.#requireReauth(connection, `${failures} refreshes failed in a row: ${message}`);
    }
    // Not yet expired: the old token still serves while the provider recovers.
    if (connection.expires_at !== null && connection.expires_at > this.#now()) {
      return open(ring, connection.access_token);
    }
    throw errors.adapterError(`the OAuth token could not be refreshed: ${message}`);
  }

  /** Marks the connection (once) and tells subscribers; always throws the searches' error. */
  async #requireReauth(connection: OAuthConnectionRow, message: string): Promise<never> {
    const { site_id, workspace_id, adapter_type, generation } = connection;
    await this.#parts.events.transaction(async (tx, record) => {
      if (!(await tx.oauth.requireReauth(site_id, generation, message))) return;
      await record({
        type: "adapter.error",
        workspace_id,
        site_id,
        data: { site_id, adapter_type, error: "reauth_required", message },
      });
    });
    throw errors.adapterError(
      `the OAuth connection of site '${site_id}' must be reconnected (reauth_required): ${message}`,
      { oauth: "reauth_required" },
    );
  }
}
