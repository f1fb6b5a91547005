/**
 * The OAuth 2.0 part of the adapter contract. An adapter plugin whose API is reached with a
 * business's OAuth grant declares `oauth` (where the provider's endpoints are, what to ask for);
 * the host runs the authorization code flow with PKCE, keeps the tokens sealed, refreshes them
 * and hands the plugin only what it needs per call: `context.oauth.accessToken()`.
 *
 * The client id and secret are the operator's (SITEVOICE_OAUTH_CLIENTS): the plugin never sees
 * them, nor where they are stored.
 */

/** What an adapter plugin declares about its provider. */
export interface OAuthProvider {
  /** The provider's authorization endpoint (where the business's browser is sent to consent). */
  authorizationUrl: string;
  /** The token endpoint: the code exchange and every refresh. */
  tokenUrl: string;
  /** RFC 7009 revocation endpoint, for providers that have one; Disconnect calls it. */
  revocationUrl?: string;
  /** The scopes asked for, joined with spaces in the authorization request. */
  scopes: string[];
  /**
   * How the client authenticates at the token endpoint: HTTP Basic (the default), the id and
   * secret in the form body, or a public client (PKCE only, no secret).
   */
  clientAuthentication?: "client_secret_basic" | "client_secret_post" | "none";
  /** Extra parameters of the authorization request (`access_type: "offline"`, `prompt`, …). */
  authorizationParams?: Record<string, string>;
  /**
   * The issuer identifier, checked against an ID token's `iss` when the provider sends one; the
   * token endpoint's origin when not given.
   */
  issuer?: string;
}

/** What the host hands an OAuth adapter instance as `context.oauth`. */
export interface OAuthAccess {
  /**
   * A valid access token of the site's connection: refreshed first when it is within 15 minutes
   * of its expiry (one refresh across every instance of the service). Pass the token the API
   * just refused as `rejected` to have it refreshed now. Rejects with the service's
   * `adapter_error` (which reaches the caller as 422) when the site is not connected, or must be
   * reconnected (`reauth_required`): call it inside `search` and let that rejection through.
   */
  accessToken(options?: { rejected?: string; signal?: AbortSignal }): Promise<string>;
}

/** Seconds before its expiry from which an access token is refreshed before use. */
export const OAUTH_REFRESH_WINDOW_SECONDS = 15 * 60;
