/** `limit` and opaque `cursor` list parameters (DECISIONS.md): default 50, max 200. */
import { errors } from "../errors.ts";

export function parseLimit(raw: unknown, { fallback = 50, max = 200 } = {}): number {
  if (raw === undefined) return fallback;
  const value = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw errors.invalidRequest(`limit must be an integer from 1 to ${max}`, { field: "limit" });
  }
  return value;
}

export const encodeCursor = (key: unknown) =>
  Buffer.from(JSON.stringify(key)).toString("base64url");

/** Decodes a cursor made by `encodeCursor`; `check` tells a well-formed key from garbage. */
export function decodeCursor<T>(
  raw: unknown,
  check: (value: unknown) => value is T,
): T | undefined {
  if (raw === undefined || raw === "") return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(String(raw), "base64url").toString("utf8"));
    if (check(value)) return value;
  } catch {
    // reported below
  }
  throw errors.invalidRequest("cursor is not one this service issued", { field: "cursor" });
}
