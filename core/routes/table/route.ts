/**
 * One route of the HTTP API, declared once: its method and path, who may call it, its limits,
 * the schemas of what it takes and answers, the errors it may answer with, and its handler. The
 * table (mount.ts) runs every route through the same phases in one order (phases.ts), and the
 * OpenAPI document is made from the same declarations.
 */
import type { Request, Response } from "express";
import type { Principal, Scope } from "../../auth/principal.ts";
import type { ErrorCode } from "../../errors.ts";
import type { LimitSpec } from "../../limits/rate-limiter.ts";
import type { PublicSite } from "../../sites/site-types.ts";
import type { SessionRow } from "../../store/repos/sessions-repo.ts";
import type { SchemaName } from "../../validation/schema-validator.ts";

/**
 * Who may call a route:
 * - `none`: anyone;
 * - `origin`: a page on one of the site's origins (the widget, unsigned);
 * - `signed`: the widget within a session, its signature over the raw body checked;
 * - `key:<scope>`: an API key holding the scope;
 * - `cookie`: a dashboard session.
 * A route may take several: a request bringing an API key (an `Authorization` header) is checked
 * as the key alternative, any other as the first of the rest.
 */
export type Access = "none" | "origin" | "signed" | `key:${Scope}` | "cookie";

/** What a limit counts by: the site of `:siteId`, the caller's address, or the API key. */
export type LimitKey = "site" | "ip" | "key";

export interface RouteLimit {
  spec: LimitSpec;
  by: LimitKey;
  /** Only for calls with this access (the widget's limits do not apply to a key's debug call). */
  for?: Access;
}

/** A request as the phases leave it for the handler. */
export interface Call<B = unknown> {
  req: Request;
  res: Response;
  /** The site of `:siteId`, for routes under a site's path. */
  site?: PublicSite;
  /** The widget's session, on a signed call. */
  session?: SessionRow;
  /** The API key's or dashboard member's principal. */
  principal?: Principal;
  /** How the request was let in: the access it passed. */
  access: Access;
  /** The body, parsed and valid under the route's schema. */
  body: B;
  /** The query parameters the route takes, each at most once. */
  query: Record<string, string | undefined>;
  /** Aborted when the client goes away before the answer. */
  signal: AbortSignal;
}

/** What a handler answers: `data` in the envelope, with the status and meta it says. */
export interface Answer {
  data: unknown;
  status?: number;
  meta?: Record<string, unknown>;
}

export interface Route<B = unknown> {
  /** The OpenAPI operationId: unique, camelCase. */
  id: string;
  method: "get" | "post" | "put" | "patch" | "delete";
  /** Express syntax: `/v1/:siteId/knowledge`. */
  path: string;
  summary: string;
  tags: string[];
  access: readonly Access[];
  limits?: readonly RouteLimit[];
  /** The body's JSON Schema (schemas/<name>.schema.json); none for a route without a body. */
  body?: SchemaName;
  /** The query parameters it takes; any other is 400 (http/query-params.ts). */
  query?: readonly string[];
  /**
   * The answer's `data` schema (an inline JSON Schema) and its status; `bare` for the one kind of
   * answer sent as it is, outside the envelope (a document tools read by its URL).
   */
  response: {
    status: number;
    description: string;
    schema: Record<string, unknown>;
    bare?: boolean;
    /** Other statuses answered with the same schema (a health check's 503), and when. */
    also?: readonly { status: number; description: string }[];
  };
  /** The error codes it may answer with, beyond the phases' own (which the table adds). */
  errors: readonly ErrorCode[];
  handle(call: Call<B>): Promise<Answer>;
}
