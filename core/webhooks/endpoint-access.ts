/**
 * Who may see and change which webhook endpoint, and which sites an endpoint may be limited to.
 * An endpoint of another workspace does not exist for the caller (404, never 403). A key limited
 * to some sites sees only endpoints limited to its sites (others are 404 to it: an endpoint of
 * every site would hand it the events of sites it may not see), and may only limit an endpoint
 * to a non-empty list of its own sites (403 otherwise). Every site named must be one of the
 * workspace (422).
 */
import { isSiteAllowed } from "../auth/authorize.ts";
import type { Principal } from "../auth/principal.ts";
import { errors } from "../errors.ts";
import type { WebhookEndpointRow } from "../store/repos/webhook-endpoints-repo.ts";
import type { Store } from "../store/store.ts";
import { siteIdsOf } from "./endpoint-view.ts";

/** Whether the principal may see (and so change) the endpoint. */
export function isVisibleTo(principal: Principal, row: WebhookEndpointRow): boolean {
  if (row.workspace_id !== principal.workspaceId) return false;
  if (principal.siteIds === undefined) return true;
  const siteIds = siteIdsOf(row);
  return (
    siteIds !== null &&
    siteIds.length > 0 &&
    siteIds.every((siteId) => isSiteAllowed(principal, siteId))
  );
}

/** 403 when a key limited to some sites would limit an endpoint to others, or to none. */
export function assertMayLimitTo(principal: Principal, siteIds: readonly string[] | null): void {
  if (principal.siteIds === undefined) return;
  if (siteIds === null) {
    throw errors.forbidden(
      "This API key is limited to some sites: give site_ids, a list of those, so the endpoint " +
        "receives the events of those sites only",
      { field: "site_ids" },
    );
  }
  const other = siteIds.find((siteId) => !isSiteAllowed(principal, siteId));
  if (other !== undefined) {
    throw errors.forbidden("This API key is limited to other sites", {
      field: "site_ids",
      site_id: other,
    });
  }
}

/** 422 naming the first of `siteIds` that is not a site of the principal's workspace. */
export async function assertSitesOfWorkspace(
  store: Store,
  principal: Principal,
  siteIds: readonly string[] | null,
): Promise<void> {
  if (siteIds === null) return;
  const found = new Set(await store.sites.idsOfWorkspace(principal.workspaceId, siteIds));
  const unknown = siteIds.filter((siteId) => !found.has(siteId));
  const [first] = unknown;
  if (first === undefined) return;
  throw errors.validationFailed(
    `site_ids names ${unknown.map((id) => `'${id}'`).join(", ")}, which ${
      unknown.length === 1 ? "is not a site" : "are not sites"
    } of this workspace`,
    { field: "site_ids", site_id: first },
  );
}
