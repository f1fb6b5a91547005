/**
 * Which parts of a site config are secret, and how they are sealed at rest, masked on read, and
 * kept when a client sends a masked value back unchanged.
 *
 * Secrets live in `adapter.config`: `auth.value`, any key named like a password, token or API key,
 * and the password inside a `connectionString`.
 */
import { isSealed, open, seal, type KeyRing } from "../security/secret-box.ts";

type Json = unknown;
type JsonObject = Record<string, Json>;

const SECRET_KEY =
  /^(password|passwd|secret|token|api_?key|client_?secret|refresh_?token|access_?token|private_?key)$/i;
const CONNECTION_KEY = /^connection_?string$/i;

export const MASK = "••••";

const isObject = (value: Json): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function isSecretKey(key: string, parentKey: string | undefined): boolean {
  return (
    SECRET_KEY.test(key) || CONNECTION_KEY.test(key) || (key === "value" && parentKey === "auth")
  );
}

/**
 * Whether the field at `path` (from the site's top, as in `["adapter", "config", "auth", "value"]`)
 * holds a secret: one that is sealed at rest and masked on read.
 */
export function isSecretPath(path: readonly string[]): boolean {
  const key = path.at(-1);
  return (
    path.length >= 3 &&
    path[0] === "adapter" &&
    path[1] === "config" &&
    key !== undefined &&
    isSecretKey(key, path.at(-2))
  );
}

/** Rebuilds `config` with every secret string passed through `fn(value, key)`. */
function mapSecrets(
  config: Json,
  fn: (value: string, key: string) => string,
  parentKey?: string,
): Json {
  if (Array.isArray(config)) return config.map((item) => mapSecrets(item, fn, parentKey));
  if (!isObject(config)) return config;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(config)) {
    out[key] =
      typeof value === "string" && isSecretKey(key, parentKey)
        ? fn(value, key)
        : mapSecrets(value, fn, key);
  }
  return out;
}

/** Applies `fn` to `site.adapter.config`, leaving the rest of the site as it is. */
function mapSiteSecrets<T extends { adapter?: unknown }>(
  site: T,
  fn: (value: string, key: string) => string,
): T {
  const adapter = site.adapter;
  if (!isObject(adapter) || !isObject(adapter.config)) return site;
  return { ...site, adapter: { ...adapter, config: mapSecrets(adapter.config, fn) } };
}

/** The masked form of one secret: a connection string keeps all but its password. */
export function maskSecret(value: string, key = ""): string {
  if (CONNECTION_KEY.test(key)) {
    try {
      const url = new URL(value);
      if (url.password !== "") url.password = "MASKED";
      return url.toString().replace("MASKED", MASK);
    } catch {
      return MASK;
    }
  }
  return value.length >= 12 ? `${MASK}${value.slice(-4)}` : MASK;
}

export const sealSiteSecrets = <T extends { adapter?: unknown }>(site: T, ring: KeyRing): T =>
  mapSiteSecrets(site, (value) => (isSealed(value) ? value : seal(ring, value)));

export const openSiteSecrets = <T extends { adapter?: unknown }>(site: T, ring: KeyRing): T =>
  mapSiteSecrets(site, (value) => (isSealed(value) ? open(ring, value) : value));

/** A site config as stored (JSON text, secrets sealed), parsed with its secrets opened. */
export const openStoredSite = <T extends { adapter?: unknown }>(config: string, ring: KeyRing): T =>
  openSiteSecrets(JSON.parse(config) as T, ring);

export const maskSiteSecrets = <T extends { adapter?: unknown }>(site: T): T =>
  mapSiteSecrets(site, (value, key) => maskSecret(value, key));

/**
 * A client that read a site and sends it back carries masked secrets; those mean "unchanged".
 * Returns `incoming` with every masked value replaced by the stored (opened) secret it masks.
 */
export function keepMaskedSecrets<T extends { adapter?: unknown }>(
  incoming: T,
  stored: { adapter?: unknown },
): T {
  const storedValues = new Map<string, string>();
  mapSiteSecrets(stored, (value, key) => {
    storedValues.set(`${key}\u0000${maskSecret(value, key)}`, value);
    return value;
  });
  return mapSiteSecrets(
    incoming,
    (value, key) => storedValues.get(`${key}\u0000${value}`) ?? value,
  );
}
