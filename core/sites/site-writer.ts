/**
 * The write paths of sites: create, change and delete. Every change is a new version (none when
 * nothing changed), writes only from the version it read (retrying when another writer won), and
 * is one transaction with the site's domains, its version row and its service event; the cache of
 * every instance then drops the site.
 */
import type { Principal } from "../auth/principal.ts";
import { actorOf } from "../auth/principal.ts";
import { errors } from "../errors.ts";
import type { EventBus } from "../events/event-bus.ts";
import { newId } from "../store/ids.ts";
import { newCrawlRow } from "../store/repos/crawls-repo.ts";
import type { SiteRow } from "../store/repos/sites-repo.ts";
import { isUniqueViolation } from "../store/store-errors.ts";
import type { Store } from "../store/store.ts";
import { truncateWal } from "../store/wal-truncation.ts";
import { SITES_PER_PLAN } from "./plan-limits.ts";
import { duplicateSiteId, type SiteAccess } from "./site-access.ts";
import type { SiteCache } from "./site-cache.ts";
import type { SiteChecker } from "./site-checker.ts";
import type { ChangeSource, SiteCodec, SiteView } from "./site-codec.ts";
import { assertDomainsFree, claimDomains } from "./site-domains.ts";
import type { SiteRules } from "./site-rules.ts";
import { keepMaskedSecrets, MaskedSecretError } from "./site-secrets.ts";
import { purgeSiteUsage } from "./site-usage-purge.ts";
import type { SiteConfig } from "./site-types.ts";
import type { Problem } from "../validation/problems-error.ts";

export interface SiteWriterParts {
  store: Store;
  codec: SiteCodec;
  access: SiteAccess;
  rules: SiteRules;
  /** Judges a whole site for every problem at once, domains included. */
  checker: SiteChecker;
  cache: SiteCache;
  events: EventBus;
  now: () => number;
}

export class SiteWriter {
  constructor(private readonly parts: SiteWriterParts) {}

  /** A new site, version 1; 403 for a key limited to some sites, 409 for a taken id or domain. */
  async create(principal: Principal, body: unknown, source: ChangeSource): Promise<SiteView> {
    if (principal.siteIds !== undefined) throw cannotCreate();
    const { value, problems } = keepSecrets(structuredClone(body) as object, {}, false);
    const input = await this.parts.checker.accept<SiteConfig>(
      "site-create",
      value,
      { workspaceId: principal.workspaceId },
      problems,
    );
    const { site_id: given, ...fields } = input;
    const siteId = given ?? newId("site");
    const site = normalizeSite({ site_id: siteId, ...fields }); // site_id first in every answer
    const at = this.parts.now();
    // A site of this id deleted moments ago may have usage data still to remove: never its.
    if (await this.parts.store.deletedSites.has(siteId)) {
      await purgeSiteUsage(this.parts.store, siteId);
    }
    const row: SiteRow = {
      ...this.parts.codec.columns(site),
      site_id: siteId,
      workspace_id: principal.workspaceId,
      version: 1,
      created_at: at,
      updated_at: at,
    };
    try {
      await this.parts.store.transaction(async (tx) => {
        await tx.workspaces.lock(principal.workspaceId, tx.client);
        await assertRoomForSite(tx, principal.workspaceId);
        if ((await tx.sites.get(siteId)) !== undefined) throw duplicateSiteId(siteId);
        await assertDomainsFree(tx, principal.workspaceId, site);
        await tx.sites.insert(row);
        await claimDomains(tx, principal.workspaceId, site);
        await tx.sites.insertVersion(this.parts.codec.versionRow(row, source, principal));
        // Its first crawl, queued with it: the crawl jobs take it from the store.
        await tx.crawls.queue(newCrawlRow(siteId, "created", at));
      });
    } catch (error) {
      throw isUniqueViolation(error) ? duplicateSiteId(siteId) : error;
    }
    await this.parts.cache.changed(siteId);
    return this.parts.codec.view(row);
  }

  /**
   * The one write path of an existing site: `next` turns the current config (secrets opened)
   * into the new one, which is validated whole, and refused with `options.earlier` problems (a
   * patch's own) listed first. No change, no new version. With `ifVersion`, only a site still at
   * that version is changed (409 otherwise), never one changed since.
   */
  async change(
    principal: Principal,
    siteId: string,
    source: ChangeSource,
    next: (current: SiteConfig) => object,
    options: { ifVersion?: number; earlier?: readonly Problem[] } = {},
  ): Promise<{ site: SiteView; changed: boolean }> {
    const { codec, access } = this.parts;
    for (let attempt = 0; ; attempt++) {
      const row = await access.owned(principal, siteId);
      if (options.ifVersion !== undefined && row.version !== options.ifVersion) {
        throw errors.conflict(
          `Site '${siteId}' is at version ${row.version}, no longer ${options.ifVersion}`,
        );
      }
      const current = codec.decode(row);
      const scope = { workspaceId: principal.workspaceId, siteId };
      const site = await this.prepare(scope, next(current), current, options.earlier ?? []);
      const columns = codec.columns(site);
      if (columns.content_hash === row.content_hash)
        return { site: codec.view(row), changed: false };
      const updated: SiteRow = {
        ...row,
        ...columns,
        version: row.version + 1,
        updated_at: this.parts.now(),
      };
      const written = await this.parts.store.transaction(async (tx) => {
        if (!(await tx.sites.update(siteId, row.version, updated))) return false;
        await assertDomainsFree(tx, principal.workspaceId, site);
        await claimDomains(tx, principal.workspaceId, site);
        await tx.sites.insertVersion(codec.versionRow(updated, source, principal));
        // A new domain is a new site to crawl (a crawl already queued reads the new one).
        if (site.domain !== current.domain) {
          await tx.crawls.queue(newCrawlRow(siteId, "domain_change", updated.updated_at));
        }
        return true;
      });
      if (written) {
        await this.parts.cache.changed(siteId);
        return { site: codec.view(updated), changed: true };
      }
      if (attempt >= 4) {
        throw errors.conflict(`Site '${siteId}' is being changed by another request; retry`);
      }
    }
  }

  /**
   * Deletes the site and its versions, with `site.deleted` in the same transaction, then its
   * usage data (site-usage-purge.ts), the events still batched for it first; then takes what its
   * visitors said out of SQLite's log (wal-truncation.ts).
   */
  async delete(principal: Principal, siteId: string): Promise<void> {
    const row = await this.parts.access.owned(principal, siteId);
    await this.parts.events.transaction(async (tx, record) => {
      await tx.sites.delete(siteId);
      await tx.deletedSites.mark(siteId, row.workspace_id, this.parts.now());
      await record({
        type: "site.deleted",
        workspace_id: row.workspace_id,
        site_id: siteId,
        data: { site_id: siteId, business_name: row.business_name, deleted_by: actorOf(principal) },
      });
    });
    await this.parts.cache.changed(siteId);
    await this.parts.events.flush();
    await purgeSiteUsage(this.parts.store, siteId);
    await truncateWal(this.parts.store.db);
  }

  /**
   * `proposed` made ready to store: masked secrets sent back replaced by the `current` ones (only
   * while their destination is the same), then checked whole (every problem at once, `earlier`
   * ones first) and normalized.
   */
  async prepare(
    scope: { workspaceId: string; siteId: string },
    proposed: object,
    current: SiteConfig,
    earlier: readonly Problem[] = [],
  ): Promise<SiteConfig> {
    const incoming = { ...proposed, site_id: scope.siteId } as { adapter?: unknown };
    const same = this.parts.rules.sameDestination(incoming.adapter, current.adapter);
    const { value, problems } = keepSecrets(incoming, current, same);
    const site = await this.parts.checker.accept<SiteConfig>("site", value, scope, [
      ...earlier,
      ...problems,
    ]);
    return normalizeSite(site);
  }
}

export const cannotCreate = () =>
  errors.forbidden("This API key is limited to some sites and cannot create new ones");

/** 422 plan_limit when the workspace already has as many sites as its plan allows. */
export async function assertRoomForSite(store: Store, workspaceId: string): Promise<void> {
  const workspace = await store.workspaces.get(workspaceId);
  const limit = workspace === undefined ? 0 : SITES_PER_PLAN[workspace.plan];
  if (limit === undefined || (await store.sites.countByWorkspace(workspaceId)) < limit) return;
  throw errors.validationFailed(
    `The ${workspace?.plan ?? "current"} plan allows ${limit} site(s)`,
    {
      reason: "plan_limit",
      limit,
      plan: workspace?.plan,
    },
  );
}

/**
 * keepMaskedSecrets, its refusal a business-rule problem (422) naming the secret's field, listed
 * with the site's other problems; the value is then `incoming` as sent.
 */
function keepSecrets<T extends { adapter?: unknown }>(
  incoming: T,
  stored: { adapter?: unknown },
  sameDestination: boolean,
): { value: T; problems: Problem[] } {
  try {
    return { value: keepMaskedSecrets(incoming, stored, sameDestination), problems: [] };
  } catch (error) {
    if (!(error instanceof MaskedSecretError)) throw error;
    const { field, message, reason } = error;
    return { value: incoming, problems: [{ field, message, kind: "rule", details: { reason } }] };
  }
}

/**
 * A whole site (as a request or file gives it) in the shape the service stores: checked by the
 * rules, the defaults of the site schema and of its adapter plugin filled in, host names
 * normalized. `site` is not changed.
 */
export function storedShape(rules: SiteRules, site: unknown): SiteConfig {
  return normalizeSite(rules.accept<SiteConfig>("site-create", structuredClone(site)));
}

/** Host names compare case-insensitively; they are kept in lower case, each once. */
export function normalizeSite(site: SiteConfig): SiteConfig {
  return {
    ...site,
    domain: site.domain.toLowerCase(),
    additional_domains: [
      ...new Set(site.additional_domains?.map((domain) => domain.toLowerCase())),
    ],
  };
}
