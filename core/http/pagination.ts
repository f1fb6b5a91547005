/** `limit` and opaque `cursor` list parameters (the API reference): default 50, max 200. */
import { errors } from "../errors.ts";
import type { InvalidParam } from "./query-params.ts";

export function parseLimit(
  raw: unknown,
  { fallback = 50, max = 200, invalid = errors.invalidRequest as InvalidParam } = {},
): number {
  if (raw === undefined) return fallback;
  const value = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw invalid(`limit must be an integer from 1 to ${max}`, { field: "limit" });
  }
  return value;
}

export const encodeCursor = (key: unknown) =>
  Buffer.from(JSON.stringify(key)).toString("base64url");

/** Decodes a cursor made by `encodeCursor`; `check` tells a well-formed key from garbage. */
export function decodeCursor<T>(
  raw: unknown,
  check: (value: unknown) => value is T,
  invalid: InvalidParam = errors.invalidRequest,
): T | undefined {
  if (raw === undefined || raw === "") return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(String(raw), "base64url").toString("utf8"));
    if (check(value)) return value;
  } catch {
    // reported below
  }
  throw invalid("cursor is not one this service issued", { field: "cursor" });
}
