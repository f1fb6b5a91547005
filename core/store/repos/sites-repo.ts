import type { Knex } from "knex";
import { likePattern } from "../store-errors.ts";

export interface SiteRow {
  site_id: string;
  workspace_id: string;
  business_name: string;
  domain: string;
  /** The SiteConfig as JSON, secrets sealed. */
  config: string;
  version: number;
  content_hash: string;
  created_at: number;
  updated_at: number;
}

export interface SiteVersionRow {
  site_id: string;
  version: number;
  config: string;
  content_hash: string;
  source: "api" | "yaml" | "dashboard";
  actor: string;
  created_at: number;
}

/** Keyset position: sites are listed oldest first, ties broken by id. */
export interface SiteCursor {
  created_at: number;
  site_id: string;
}

export interface SiteListQuery {
  limit: number;
  after?: SiteCursor;
  /** Case-insensitive substring of the business name or the domain. */
  q?: string;
  /** Only these sites (a key limited to some sites). */
  siteIds?: readonly string[];
}

export class SitesRepo {
  constructor(private readonly knex: Knex) {}

  async list(workspaceId: string, query: SiteListQuery): Promise<SiteRow[]> {
    const rows = this.knex<SiteRow>("sites").where({ workspace_id: workspaceId });
    if (query.siteIds !== undefined) rows.whereIn("site_id", [...query.siteIds]);
    if (query.q !== undefined && query.q !== "") {
      const pattern = likePattern(query.q);
      rows.andWhere((w) =>
        w
          .whereRaw("lower(business_name) like ? escape '!'", [pattern])
          .orWhereRaw("lower(domain) like ? escape '!'", [pattern]),
      );
    }
    const after = query.after;
    if (after !== undefined) {
      rows.andWhere((w) =>
        w
          .where("created_at", ">", after.created_at)
          .orWhere((t) =>
            t.where("created_at", "=", after.created_at).andWhere("site_id", ">", after.site_id),
          ),
      );
    }
    return rows.orderBy([{ column: "created_at" }, { column: "site_id" }]).limit(query.limit);
  }

  async get(siteId: string): Promise<SiteRow | undefined> {
    return this.knex<SiteRow>("sites").where({ site_id: siteId }).first();
  }

  /** Which of `siteIds` are sites of the workspace. */
  async idsOfWorkspace(workspaceId: string, siteIds: readonly string[]): Promise<string[]> {
    if (siteIds.length === 0) return [];
    const rows = await this.knex("sites")
      .where({ workspace_id: workspaceId })
      .whereIn("site_id", [...siteIds])
      .select<{ site_id: string }[]>("site_id");
    return rows.map((r) => r.site_id);
  }

  /** The workspaces `siteIds` belong to, each once (an unknown site has none). */
  async workspacesOf(siteIds: readonly string[]): Promise<string[]> {
    if (siteIds.length === 0) return [];
    const rows = await this.knex("sites")
      .whereIn("site_id", [...siteIds])
      .distinct<{ workspace_id: string }[]>("workspace_id");
    return rows.map((r) => r.workspace_id);
  }

  async countByWorkspace(workspaceId: string): Promise<number> {
    const row = await this.knex("sites")
      .where({ workspace_id: workspaceId })
      .count<{ n: number | string }>({ n: "*" })
      .first();
    return Number(row?.n ?? 0);
  }

  async insert(row: SiteRow): Promise<void> {
    await this.knex("sites").insert(row);
  }

  /** Writes a new version only if nobody else did since `expectedVersion` was read. */
  async update(
    siteId: string,
    expectedVersion: number,
    fields: Pick<
      SiteRow,
      "business_name" | "domain" | "config" | "version" | "content_hash" | "updated_at"
    >,
  ): Promise<boolean> {
    const changed = await this.knex("sites")
      .where({ site_id: siteId, version: expectedVersion })
      .update(fields);
    return changed > 0;
  }

  /** Which other sites of the workspace own any of `domains` (stored in lower case). */
  async domainOwners(
    workspaceId: string,
    domains: readonly string[],
    exceptSiteId?: string,
  ): Promise<{ domain: string; site_id: string }[]> {
    if (domains.length === 0) return [];
    const rows = this.knex("site_domains")
      .where({ workspace_id: workspaceId })
      .whereIn("domain", [...domains]);
    if (exceptSiteId !== undefined) rows.whereNot("site_id", exceptSiteId);
    return rows.select("domain", "site_id");
  }

  /** Makes `domains` the site's own (and only those); a domain another site owns fails unique. */
  async setDomains(siteId: string, workspaceId: string, domains: readonly string[]) {
    await this.knex("site_domains").where({ site_id: siteId }).delete();
    if (domains.length === 0) return;
    await this.knex("site_domains").insert(
      domains.map((domain) => ({ workspace_id: workspaceId, domain, site_id: siteId })),
    );
  }

  async delete(siteId: string): Promise<boolean> {
    return (await this.knex("sites").where({ site_id: siteId }).delete()) > 0;
  }

  /** Every site's id and time zone (read from its config, no secret opened). */
  async timeZones(): Promise<{ site_id: string; timezone: string | undefined }[]> {
    const rows = await this.knex<SiteRow>("sites").select("site_id", "config");
    return rows.map((row) => ({
      site_id: row.site_id,
      timezone: (JSON.parse(row.config) as { timezone?: string }).timezone,
    }));
  }

  /** Every site id, for store-wide maintenance such as re-sealing secrets. */
  async allIds(): Promise<string[]> {
    return (
      await this.knex("sites").orderBy("site_id").select<{ site_id: string }[]>("site_id")
    ).map((r) => r.site_id);
  }

  /** Rewrites the stored form of a site in place (same content, same version). */
  async reseal(siteId: string, fields: Pick<SiteRow, "config" | "content_hash">): Promise<void> {
    await this.knex("sites").where({ site_id: siteId }).update(fields);
  }

  async resealVersion(
    siteId: string,
    version: number,
    fields: Pick<SiteVersionRow, "config" | "content_hash">,
  ): Promise<void> {
    await this.knex("site_versions").where({ site_id: siteId, version }).update(fields);
  }

  async insertVersion(row: SiteVersionRow): Promise<void> {
    await this.knex("site_versions").insert(row);
  }

  /** Newest first; `before` continues a page. Without a limit, every version. */
  async listVersions(
    siteId: string,
    query: { limit?: number; before?: number } = {},
  ): Promise<SiteVersionRow[]> {
    const rows = this.knex<SiteVersionRow>("site_versions").where({ site_id: siteId });
    if (query.before !== undefined) rows.andWhere("version", "<", query.before);
    if (query.limit !== undefined) rows.limit(query.limit);
    return rows.orderBy("version", "desc");
  }

  async getVersion(siteId: string, version: number): Promise<SiteVersionRow | undefined> {
    return this.knex<SiteVersionRow>("site_versions").where({ site_id: siteId, version }).first();
  }
}
