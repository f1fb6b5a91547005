import type { Request } from "express";
import { errors } from "./errors.ts";

/** A query parameter given at most once, as text; 400 naming it when repeated or nested. */
export function queryParam(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    throw errors.invalidRequest(`${name} must be given once, as text`, { field: name });
  }
  return value;
}
