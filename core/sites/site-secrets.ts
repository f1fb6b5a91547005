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

/** Rebuilds `config` with every secret string passed through `fn(value, key, path)`. */
function mapSecrets(
  config: Json,
  fn: (value: string, key: string, path: readonly string[]) => string,
  path: readonly string[] = [],
): Json {
  const parentKey = path.at(-1);
  if (Array.isArray(config)) {
    return config.map((item, index) => mapSecrets(item, fn, [...path, String(index)]));
  }
  if (!isObject(config)) return config;
  // fromEntries defines each key as the object's own, so a key named __proto__ stays a field
  // (for the rules to refuse or keep) instead of becoming the copy's prototype.
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => [
      key,
      typeof value === "string" && isSecretKey(key, parentKey)
        ? fn(value, key, [...path, key])
        : mapSecrets(value, fn, [...path, key]),
    ]),
  ) as JsonObject;
}

/** Applies `fn` to `site.adapter.config`, leaving the rest of the site as it is. */
function mapSiteSecrets<T extends { adapter?: unknown }>(
  site: T,
  fn: (value: string, key: string, path: readonly string[]) => string,
): T {
  // Anything but an object is left for the schema to refuse (the body must be an object).
  if (!isObject(site)) return site;
  const adapter = site.adapter;
  if (!isObject(adapter) || !isObject(adapter.config)) return site;
  return {
    ...site,
    adapter: { ...adapter, config: mapSecrets(adapter.config, fn, ["adapter", "config"]) },
  };
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

/** An adapter config with every secret blanked: what stays when only secrets change. */
export const withoutSecrets = (config: unknown): unknown => mapSecrets(config, () => "");

/** A masked secret sent back that cannot mean "unchanged". */
export class MaskedSecretError extends Error {
  constructor(
    /** Dotted path of the secret, such as `adapter.config.auth.value`. */
    readonly field: string,
    readonly reason: "destination_changed" | "unknown_secret",
  ) {
    super(
      reason === "destination_changed"
        ? `${field} is masked, but the adapter now points somewhere else: send the secret itself ` +
            "(a stored secret never follows a changed host, port or database)"
        : `${field} is masked but matches no stored secret: send the secret itself`,
    );
    this.name = "MaskedSecretError";
  }
}

/**
 * A client that read a site and sends it back carries masked secrets; those mean "unchanged".
 * Returns `incoming` with every masked value replaced by the stored (opened) secret it masks.
 *
 * A stored secret is bound to where it is sent: when `sameDestination` is false (the adapter's
 * type, REST origin or database address changed), a masked value is refused rather than
 * resolved, or anyone allowed to edit the site could point it at their own host and receive the
 * secret the API never shows. A masked value that matches no stored secret is refused too: it
 * would otherwise be stored as the literal text "••••1234".
 */
export function keepMaskedSecrets<T extends { adapter?: unknown }>(
  incoming: T,
  stored: { adapter?: unknown },
  sameDestination: boolean,
): T {
  const storedValues = new Map<string, string>();
  mapSiteSecrets(stored, (value, key) => {
    storedValues.set(`${key}\u0000${maskSecret(value, key)}`, value);
    return value;
  });
  return mapSiteSecrets(incoming, (value, key, path) => {
    if (!value.includes(MASK)) return value;
    const secret = storedValues.get(`${key}\u0000${value}`);
    if (secret === undefined) throw new MaskedSecretError(path.join("."), "unknown_secret");
    if (!sameDestination) throw new MaskedSecretError(path.join("."), "destination_changed");
    return secret;
  });
}
