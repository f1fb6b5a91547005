/**
 * `requireKey(scope)`: authenticates the API key (401), counts it against the per-key limit of
 * 1,000 requests a minute (429), then checks the scope (403). Scope is enforced on every call.
 */
import type { NextFunction, Request, Response } from "express";
import type { ApiKeyService } from "../keys/api-key-service.ts";
import { assertScope } from "../auth/authorize.ts";
import type { Principal, Scope } from "../auth/principal.ts";
import { errors } from "../errors.ts";
import type { RateLimiterFactory } from "../limits/rate-limiter.ts";
import { consumeLimit } from "./rate-limit-headers.ts";

export const API_KEY_LIMIT = { name: "api-key", points: 1000, durationSeconds: 60 };

export function apiKeyAuth(keys: ApiKeyService, limiters: RateLimiterFactory) {
  const limiter = limiters(API_KEY_LIMIT);
  return (scope?: Scope) => async (req: Request, res: Response, next: NextFunction) => {
    const principal = await keys.authenticate(req.get("authorization"));
    req.principal = principal;
    await consumeLimit(limiter, principal.keyId, res);
    if (scope !== undefined) assertScope(principal, scope);
    next();
  };
}

/** The principal an auth middleware set on the request; 401 when none ran or none matched. */
export function principalOf(req: Request): Principal {
  if (req.principal === undefined) throw errors.unauthorized();
  return req.principal;
}

/**
 * For routes a key may call instead of another credential (the query endpoint's debug path, a
 * lead's update token): runs `requireKey(scope)` when `usesKey(req)` says the request brings a
 * key, and lets it through to the route otherwise.
 */
export const whenKey =
  (
    requireKey: ReturnType<typeof apiKeyAuth>,
    scope: Scope,
    usesKey: (req: Request) => boolean = (req) => req.headers.authorization !== undefined,
  ) =>
  (req: Request, res: Response, next: NextFunction) =>
    usesKey(req) ? requireKey(scope)(req, res, next) : next();
