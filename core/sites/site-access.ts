/**
 * Which stored site a principal may act on: a key limited to other sites is 403, a site of
 * another workspace (or none) 404. Reads may take the row from the cache; writes read the store,
 * as they must start from the latest version.
 */
import { assertSiteAllowed } from "../auth/authorize.ts";
import type { Principal } from "../auth/principal.ts";
import { errors } from "../errors.ts";
import type { SiteRow } from "../store/repos/sites-repo.ts";
import type { Store } from "../store/store.ts";
import type { SiteCache } from "./site-cache.ts";

export class SiteAccess {
  constructor(
    private readonly store: Store,
    private readonly cache: SiteCache,
  ) {}

  /** The stored row of a site the principal may touch. */
  async owned(
    principal: Principal,
    siteId: string,
    options: { cached?: boolean } = {},
  ): Promise<SiteRow> {
    assertSiteAllowed(principal, siteId);
    const row = options.cached ? await this.cached(siteId) : await this.store.sites.get(siteId);
    if (row === undefined || row.workspace_id !== principal.workspaceId) {
      throw errors.notFound("Site", siteId);
    }
    return row;
  }

  /**
   * The row of a site the principal may write, or undefined when no site has that id. Site ids
   * are global: one taken by another workspace cannot be created here (409).
   */
  async ownedOrAbsent(principal: Principal, siteId: string): Promise<SiteRow | undefined> {
    assertSiteAllowed(principal, siteId);
    const row = await this.store.sites.get(siteId);
    if (row !== undefined && row.workspace_id !== principal.workspaceId) {
      throw duplicateSiteId(siteId);
    }
    return row;
  }

  /** A site by id alone, through the cache (the widget endpoints have no principal). */
  cached(siteId: string): Promise<SiteRow | undefined> {
    return this.cache.get(siteId, (id) => this.store.sites.get(id));
  }
}

export const duplicateSiteId = (siteId: string) =>
  errors.conflict(`A site with site_id '${siteId}' already exists`, {
    field: "site_id",
    site_id: siteId,
  });
