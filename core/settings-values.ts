/**
 * How each setting's raw text becomes a value: one parser per kind of value, each throwing a
 * SettingsError that names the variable and says what it must be (settings.ts reads them).
 */
import path from "node:path";
import {
  parseOutboundAllowEntry,
  parseOutboundAllowList,
  type OutboundAllowEntry,
} from "./security/outbound-allow-list.ts";

export type DatabaseClient = "sqlite" | "postgres" | "mysql";

/** Where the store lives; `sqlite` resolves to a file (or `:memory:`). */
export interface DatabaseSettings {
  client: DatabaseClient;
  url: string;
  filename?: string;
  /** The service's own folder around an embedded database, kept 0700 (the data folder). */
  privateDir?: string;
}

export class SettingsError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`invalid setting ${variable}: ${reason}`);
    this.name = "SettingsError";
  }
}

export function parsePort(raw: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) {
    throw new SettingsError("PORT", `must be an integer from 0 to 65535 (got "${raw}")`);
  }
  return port;
}

export function parseCount(variable: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const count = Number(raw);
  if (!/^\d+$/.test(raw) || count < 1 || count > 10_000_000) {
    throw new SettingsError(variable, `must be an integer from 1 to 10000000 (got "${raw}")`);
  }
  return count;
}

/** Milliseconds from 0 to `max`, `fallback` when unset. */
export function parseMillis(
  variable: string,
  raw: string | undefined,
  fallback: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max) {
    throw new SettingsError(
      variable,
      `must be a number of milliseconds from 0 to ${max} (got "${raw}")`,
    );
  }
  return Number(raw);
}

/** An integer setting from `min` to `max`, `fallback` when unset. */
export function parseBetween(
  variable: string,
  raw: string | undefined,
  fallback: number,
  [min, max]: readonly [number, number],
): number {
  const value = parseCount(variable, raw, fallback);
  if (value < min || value > max) {
    throw new SettingsError(variable, `must be from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

/** `DATABASE_URL`: postgres://…, mysql://… (or mariadb://…), sqlite:path, sqlite::memory:. */
export function parseDatabaseUrl(raw: string | undefined, dataDir: string): DatabaseSettings {
  if (raw === undefined || raw === "") {
    const filename = path.join(dataDir, "sitevoice.db");
    return { client: "sqlite", url: `sqlite:${filename}`, filename, privateDir: dataDir };
  }
  if (raw.startsWith("sqlite:")) {
    const rest = raw.slice("sqlite:".length).replace(/^\/\//, "");
    if (rest === "")
      throw new SettingsError("DATABASE_URL", "sqlite: needs a file path or :memory:");
    return {
      client: "sqlite",
      url: raw,
      filename: rest === ":memory:" ? rest : path.resolve(rest),
    };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SettingsError("DATABASE_URL", "is not a URL (postgres://, mysql:// or sqlite:path)");
  }
  switch (url.protocol) {
    case "postgres:":
    case "postgresql:":
      return { client: "postgres", url: raw };
    case "mysql:":
    case "mariadb:":
      return { client: "mysql", url: raw.replace(/^mariadb:/, "mysql:") };
    default:
      throw new SettingsError(
        "DATABASE_URL",
        `unsupported scheme "${url.protocol}" (use postgres://, mysql:// or sqlite:path)`,
      );
  }
}

export function parseMasterKey(raw: string, variable = "SITEVOICE_MASTER_KEY"): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64");
  if (key.length !== 32) {
    throw new SettingsError(
      variable,
      "must be 32 bytes as 64 hex characters or base64 (try: openssl rand -base64 32)",
    );
  }
  return key;
}

export function parseUrl(variable: string, raw: string, protocols: string[]): string {
  try {
    const url = new URL(raw);
    if (protocols.includes(url.protocol)) return raw;
  } catch {
    // reported below
  }
  throw new SettingsError(variable, `must be a ${protocols.join(" or ")}// URL (got "${raw}")`);
}

/** One mail setting through its check (core/mail/mail-settings.ts), its reason under its name. */
export function mailSetting(variable: string, raw: string, check: (raw: string) => string): string {
  try {
    return check(raw);
  } catch (error) {
    throw new SettingsError(variable, (error as Error).message);
  }
}

export function parsePluginConfig(raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new SettingsError(
      "SITEVOICE_PLUGIN_CONFIG",
      "must be a JSON object keyed by plugin name",
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SettingsError(
      "SITEVOICE_PLUGIN_CONFIG",
      "must be a JSON object keyed by plugin name",
    );
  }
  return value as Record<string, unknown>;
}

export function parseBoolean(variable: string, raw: string): boolean {
  const lower = raw.toLowerCase();
  if (lower === "true" || lower === "on") return true;
  if (lower === "false" || lower === "off") return false;
  throw new SettingsError(variable, `must be true or false (or on, off) (got "${raw}")`);
}

export function parseSignup(raw: string): "open" | "invite" {
  if (raw === "open" || raw === "invite") return raw;
  throw new SettingsError("SITEVOICE_SIGNUP", `must be open or invite (got "${raw}")`);
}

/** The service's own port on localhost, where the demo's example backend answers. */
export const demoDestinations = (port: number): OutboundAllowEntry[] =>
  [`localhost:${port}`, `127.0.0.1:${port}`].map(parseOutboundAllowEntry);

export function parseOutboundAllow(raw: string): OutboundAllowEntry[] {
  try {
    return parseOutboundAllowList(raw);
  } catch (error) {
    // The message names the entry and what is wrong with it.
    throw new SettingsError("SITEVOICE_OUTBOUND_ALLOW", (error as Error).message);
  }
}

/** A plugin `type` like an adapter's, or an npm-style plugin name (the host finds either). */
export function parseVoiceProvider(raw: string, variable = "SITEVOICE_VOICE_PROVIDER"): string {
  if (/^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(raw)) return raw;
  throw new SettingsError(
    variable,
    `must be a voice-provider plugin type or name such as openai (got "${raw}")`,
  );
}

/** SITEVOICE_EMBEDDINGS: `off` (or unset) for none, else the provider that embeds. */
export function parseEmbeddings(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.toLowerCase() === "off") return undefined;
  return parseVoiceProvider(raw, "SITEVOICE_EMBEDDINGS");
}

export function oneOf<T extends string>(variable: string, raw: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw new SettingsError(variable, `must be one of ${allowed.join(", ")} (got "${raw}")`);
}
