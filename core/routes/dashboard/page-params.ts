/**
 * What the dashboard's pages read from their query, and the sites their choosers offer: shared by
 * every workspace page, so each refuses a bad parameter with the same clear 400.
 */
import type { Request } from "express";
import type { Principal } from "../../auth/principal.ts";
import { errors } from "../../errors.ts";
import type { SiteService } from "../../sites/site-service.ts";

/** Sites a chooser (a filter, a key's or an endpoint's sites) offers at most. */
export const SITES_LISTED = 200;

/**
 * A text query parameter of a dashboard page: undefined when absent or empty (a filter form sends
 * its "any" choice empty), 400 naming it when given twice or as anything but text.
 */
export function textParam(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string" || value.length > 1000) {
    throw errors.invalidRequest(`${name} must be given once, as text`, { field: name });
  }
  return value;
}

/** `value` when it is one of `allowed`, else 400 naming the field and the choices. */
export function oneOf<T extends string>(
  field: string,
  value: unknown,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly unknown[]).includes(value)) {
    throw errors.invalidRequest(`${field} must be one of ${allowed.join(", ")}`, { field });
  }
  return value as T;
}

/** The workspace's sites as the choosers offer them, and their names by id. */
export async function siteChoices(sites: SiteService, principal: Principal) {
  const page = await sites.list(principal, { limit: SITES_LISTED });
  const choices = page.items.map((s) => ({ site_id: s.site_id, business_name: s.business_name }));
  return { choices, names: new Map(choices.map((s) => [s.site_id, s.business_name])) };
}
