/**
 * The authorization rules, whoever the caller is and whatever brought the request (HTTP, the
 * CLI, a job): a scope is needed for each kind of act, and a key limited to some sites acts on
 * those only.
 */
import { errors } from "../errors.ts";
import type { Principal, Scope } from "./principal.ts";

/** 403 when the principal lacks `scope`. */
export function assertScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.has(scope)) {
    throw errors.forbidden(`This API key lacks the scope ${scope}`, { required_scope: scope });
  }
}

/** Whether the principal may act on `siteId`: false for a key limited to other sites. */
export function isSiteAllowed(principal: Principal, siteId: string): boolean {
  return principal.siteIds === undefined || principal.siteIds.has(siteId);
}

/** 403 when a key limited to some sites asks for another one. */
export function assertSiteAllowed(principal: Principal, siteId: string): void {
  if (!isSiteAllowed(principal, siteId)) {
    throw errors.forbidden(`This API key is limited to other sites`, { site_id: siteId });
  }
}
