/**
 * SITEVOICE_OAUTH_CLIENTS: the operator's OAuth clients, one per adapter type, as a JSON object:
 *
 *   {"airtable": {"client_id": "…", "client_secret": "…"}}
 *
 * A client registered with a provider belongs to whoever runs the service, not to a site: sites
 * only connect through it. An entry may also move the provider's endpoints (`authorization_url`,
 * `token_url`, `revocation_url`), for a provider's regional or self-hosted installation or a
 * test's authorization server; a site's config can never move them, so the client secret only
 * ever goes where the operator said.
 */
import { SettingsError } from "../settings-values.ts";

export interface OAuthClientSettings {
  client_id: string;
  /** Absent for a public client (PKCE only). */
  client_secret?: string;
  authorization_url?: string;
  token_url?: string;
  revocation_url?: string;
}

const VARIABLE = "SITEVOICE_OAUTH_CLIENTS";
const FIELDS = ["client_id", "client_secret", "authorization_url", "token_url", "revocation_url"];
const URL_FIELDS = ["authorization_url", "token_url", "revocation_url"] as const;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The clients of `raw` by adapter type; none when unset. */
export function parseOAuthClients(raw: string | undefined): Record<string, OAuthClientSettings> {
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = undefined;
  }
  if (!isObject(value)) {
    throw new SettingsError(
      VARIABLE,
      'must be a JSON object keyed by adapter type, like {"airtable": {"client_id": "…", "client_secret": "…"}}',
    );
  }
  const clients: Record<string, OAuthClientSettings> = {};
  for (const [type, entry] of Object.entries(value)) {
    clients[type] = parseClient(type, entry);
  }
  return clients;
}

function parseClient(type: string, entry: unknown): OAuthClientSettings {
  const fail = (message: string) => new SettingsError(VARIABLE, `"${type}": ${message}`);
  if (!isObject(entry)) throw fail("must be an object with client_id (and client_secret)");
  const unknown = Object.keys(entry).find((key) => !FIELDS.includes(key));
  if (unknown !== undefined)
    throw fail(`unknown field "${unknown}" (allowed: ${FIELDS.join(", ")})`);
  for (const field of FIELDS) {
    const v = entry[field];
    if (v !== undefined && (typeof v !== "string" || v === "")) {
      throw fail(`${field} must be a non-empty string`);
    }
  }
  if (entry.client_id === undefined) throw fail("client_id is required");
  for (const field of URL_FIELDS) {
    const url = entry[field];
    if (typeof url === "string" && !isEndpoint(url)) {
      throw fail(`${field} must be an https URL (http only on localhost or 127.0.0.1)`);
    }
  }
  return entry as unknown as OAuthClientSettings;
}

/** https, or plain http on the loopback host names a test or a local provider uses. */
export function isEndpoint(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === "https:") return true;
  return parsed.protocol === "http:" && isLoopbackHost(parsed.hostname);
}

export const isLoopbackHost = (hostname: string) =>
  hostname === "localhost" || hostname === "127.0.0.1" || hostname === "[::1]";
