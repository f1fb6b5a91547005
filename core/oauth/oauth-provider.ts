/**
 * The provider an OAuth adapter type connects through, as oauth4webapi speaks to it: the plugin's
 * `oauth` block with the operator's client (SITEVOICE_OAUTH_CLIENTS) and the endpoints the
 * operator may have moved, every request through the outbound guard. oauth4webapi (panva's
 * low-level OAuth 2.0 client) builds the requests and checks the answers: PKCE, the callback's
 * parameters, token and error responses, revocation.
 */
import * as oauth from "oauth4webapi";
import { errors } from "../errors.ts";
import type { OAuthProvider } from "../host/oauth-contract.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import { isEndpoint, isLoopbackHost, type OAuthClientSettings } from "./oauth-client-settings.ts";

/** A provider ready for requests. */
export interface ResolvedProvider {
  type: string;
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  scopes: string[];
  authorizationParams: Record<string, string>;
  /** How every request is made: the guarded fetch, and plain http only to a loopback endpoint. */
  http: { [oauth.customFetch]: typeof fetch; [oauth.allowInsecureRequests]: boolean };
}

/** The `oauth` block of the adapter plugin serving `type`; undefined when it has none. */
export function oauthBlockOf(plugins: PluginHost, type: string): OAuthProvider | undefined {
  return plugins.find("adapter", type)?.definition.oauth;
}

/**
 * The provider of adapter `type`: 422 validation_failed when the type is not an OAuth adapter,
 * 503 when the operator has not configured its client.
 */
export function resolveProvider(
  plugins: PluginHost,
  clients: Readonly<Record<string, OAuthClientSettings>>,
  type: string,
  fetch: typeof globalThis.fetch,
): ResolvedProvider {
  const block = oauthBlockOf(plugins, type);
  if (block === undefined) {
    throw errors.validationFailed(`Adapter type "${type}" does not connect with OAuth`, {
      field: "adapter.type",
    });
  }
  const settings = clients[type];
  if (settings === undefined) {
    throw errors.serviceUnavailable(
      `No OAuth client is configured for "${type}" adapters: the operator sets one in SITEVOICE_OAUTH_CLIENTS`,
    );
  }
  const authorization = settings.authorization_url ?? block.authorizationUrl;
  const token = settings.token_url ?? block.tokenUrl;
  const revocation = settings.revocation_url ?? block.revocationUrl;
  const endpoints = [authorization, token, ...(revocation === undefined ? [] : [revocation])];
  if (!endpoints.every(isEndpoint)) {
    throw errors.serviceUnavailable(`The OAuth endpoints of "${type}" adapters are not https URLs`);
  }
  return {
    type,
    as: {
      issuer: block.issuer ?? new URL(token).origin,
      authorization_endpoint: authorization,
      token_endpoint: token,
      ...(revocation === undefined ? {} : { revocation_endpoint: revocation }),
    },
    client: { client_id: settings.client_id },
    clientAuth: clientAuthOf(block, settings),
    scopes: block.scopes,
    authorizationParams: block.authorizationParams ?? {},
    http: {
      [oauth.customFetch]: fetch,
      [oauth.allowInsecureRequests]: endpoints.some(
        (url) => new URL(url).protocol === "http:" && isLoopbackHost(new URL(url).hostname),
      ),
    },
  };
}

function clientAuthOf(block: OAuthProvider, settings: OAuthClientSettings): oauth.ClientAuth {
  const method = block.clientAuthentication ?? "client_secret_basic";
  if (method === "none") return oauth.None();
  if (settings.client_secret === undefined) {
    throw errors.serviceUnavailable(
      `The OAuth client of "${settings.client_id}" has no client_secret, which this provider needs`,
    );
  }
  return method === "client_secret_post"
    ? oauth.ClientSecretPost(settings.client_secret)
    : oauth.ClientSecretBasic(settings.client_secret);
}

/** The provider's error code and description, or the failure's message, for people and logs. */
export function providerError(error: unknown): { code: string; message: string } {
  if (error instanceof oauth.ResponseBodyError) {
    const description = error.error_description ?? "";
    return {
      code: error.error,
      message: description === "" ? error.error : `${error.error}: ${description}`,
    };
  }
  if (error instanceof oauth.AuthorizationResponseError) {
    return { code: error.error, message: error.error_description ?? error.error };
  }
  if (error instanceof Error) return { code: "provider_unreachable", message: error.message };
  return { code: "provider_unreachable", message: String(error) };
}
