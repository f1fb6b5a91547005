/**
 * Sites: create, read, list, patch and delete, each change a new version. Bodies are validated by
 * their JSON Schemas, secrets are sealed before they reach the store and masked on every read, and
 * every rule that needs the store (ownership, plan limits, unique ids) is checked here.
 */
import { contentHasher, type ContentHasher } from "./content-hash.ts";
import { errors, isServiceError } from "../errors.ts";
import { assertSiteAllowed } from "../auth/authorize.ts";
import { actorOf, type Principal } from "../auth/principal.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import type { KeyRing } from "../security/secret-box.ts";
import { newId } from "../store/ids.ts";
import type { SiteCursor, SiteRow, SiteVersionRow } from "../store/repos/sites-repo.ts";
import { isUniqueViolation } from "../store/store-errors.ts";
import type { Store } from "../store/store.ts";
import { validateBody } from "../validation/schema-validator.ts";
import { SITES_PER_PLAN } from "./plan-limits.ts";
import { SiteCache } from "./site-cache.ts";
import type { EventBus } from "../events/event-bus.ts";
import { diffSites, type FieldChange } from "./site-diff.ts";
import {
  keepMaskedSecrets,
  MaskedSecretError,
  maskSiteSecrets,
  openStoredSite,
  sealSiteSecrets,
  withoutSecrets,
} from "./site-secrets.ts";
import { stableJson } from "../util/stable-json.ts";
import type { SiteConfig } from "./site-types.ts";
import type { SiteRules } from "./site-rules.ts";
import { assertDomainsFree, claimDomains } from "./site-domains.ts";

export type ChangeSource = SiteVersionRow["source"];

/** A site as answered: the config with secrets masked, plus its version and times. */
export type SiteView = SiteConfig & { version: number; created_at: string; updated_at: string };

/** What applying a whole site would do, without doing it (PUT …?dry_run=true, sitevoice diff). */
export interface SitePlan {
  site_id: string;
  action: "create" | "update" | "unchanged";
  /** The current version; null when the site does not exist yet. */
  version: number | null;
  /** Where the current version came from (`api`, `yaml`, `dashboard`); null for a new site. */
  source: ChangeSource | null;
  /** Field by field, secrets masked; for a new site, every top-level field as added. */
  changes: FieldChange[];
}

export interface SiteServiceOptions {
  /** Holds rows for reads and hears of changes made by other instances. */
  cache?: SiteCache;
  /** Receives `site.deleted`. */
  events?: Pick<EventBus, "emit">;
  now?: () => number;
}

export interface SiteListPage {
  items: SiteView[];
  next?: SiteCursor;
}

const isCursor = (value: unknown): value is SiteCursor =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as SiteCursor).created_at === "number" &&
  typeof (value as SiteCursor).site_id === "string";

export { isCursor as isSiteCursor };

export class SiteService {
  private readonly hash: ContentHasher;
  private readonly now: () => number;
  readonly cache: SiteCache;
  private readonly events?: Pick<EventBus, "emit">;
  /** Opened configs of the rows the cache holds; a row that leaves the cache takes its entry. */
  private readonly decoded = new WeakMap<SiteRow, SiteConfig>();

  constructor(
    private readonly store: Store,
    private readonly ring: KeyRing,
    private readonly plugins: PluginHost,
    /** What a whole site must satisfy, shared with `sitevoice validate`. */
    private readonly rules: SiteRules,
    options: SiteServiceOptions = {},
  ) {
    this.hash = contentHasher(ring);
    this.now = options.now ?? Date.now;
    this.cache = options.cache ?? new SiteCache();
    this.events = options.events;
  }

  async list(
    principal: Principal,
    query: { limit: number; after?: SiteCursor; q?: string },
  ): Promise<SiteListPage> {
    const rows = await this.store.sites.list(principal.workspaceId, {
      ...query,
      limit: query.limit + 1,
      siteIds: principal.siteIds === undefined ? undefined : [...principal.siteIds],
    });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map((row) => this.view(row)),
      next:
        rows.length > query.limit && last !== undefined
          ? { created_at: last.created_at, site_id: last.site_id }
          : undefined,
    };
  }

  /**
   * The site's config with its secrets open, for the service's own use (an adapter needs its
   * credentials); never answered to a client. Read through the cache.
   */
  async openConfig(
    principal: Principal,
    siteId: string,
  ): Promise<SiteConfig & { version: number }> {
    const row = await this.owned(principal, siteId, { cached: true });
    return { ...this.decode(row), version: row.version };
  }

  /**
   * A site as the widget endpoints need it, found by id alone (they have no workspace key):
   * the opened config, its workspace and version; undefined for an unknown site. Cached.
   */
  async publicSite(
    siteId: string,
  ): Promise<{ site: SiteConfig; workspaceId: string; version: number } | undefined> {
    if (!/^[a-z0-9][a-z0-9_-]{2,62}$/.test(siteId)) return undefined;
    const row = await this.cache.get(siteId, (id) => this.store.sites.get(id));
    if (row === undefined) return undefined;
    return { site: this.decodeCached(row), workspaceId: row.workspace_id, version: row.version };
  }

  async get(principal: Principal, siteId: string): Promise<SiteView> {
    return this.view(await this.owned(principal, siteId, { cached: true }));
  }

  async create(
    principal: Principal,
    body: unknown,
    source: ChangeSource = "api",
  ): Promise<SiteView> {
    if (principal.siteIds !== undefined) throw cannotCreate();
    const input = this.rules.accept<SiteConfig>(
      "site-create",
      keepSecrets(structuredClone(body) as { adapter?: unknown }, {}, false),
    );
    const { site_id: given, ...fields } = input;
    const siteId = given ?? newId("site");
    const site = this.normalize({ site_id: siteId, ...fields }); // site_id first in every answer
    const at = this.now();
    const row: SiteRow = {
      ...this.columns(site),
      site_id: siteId,
      workspace_id: principal.workspaceId,
      version: 1,
      created_at: at,
      updated_at: at,
    };
    try {
      await this.store.transaction(async (tx) => {
        await tx.workspaces.lock(principal.workspaceId, tx.client);
        await assertRoomForSite(tx, principal.workspaceId);
        if ((await tx.sites.get(siteId)) !== undefined) throw duplicate(siteId);
        await assertDomainsFree(tx, principal.workspaceId, site);
        await tx.sites.insert(row);
        await claimDomains(tx, principal.workspaceId, site);
        await tx.sites.insertVersion(this.versionRow(row, source, principal));
      });
    } catch (error) {
      throw isUniqueViolation(error) ? duplicate(siteId) : error;
    }
    await this.cache.changed(siteId);
    return this.view(row);
  }

  /**
   * Replaces the top-level fields given in `body` (a field set to null is removed where the schema
   * allows it). A masked secret sent back means "unchanged". No change, no new version.
   */
  async patch(
    principal: Principal,
    siteId: string,
    body: unknown,
    source: ChangeSource = "api",
  ): Promise<SiteView> {
    const changes = validateBody<Record<string, unknown>>("site-patch", structuredClone(body));
    const { site } = await this.change(principal, siteId, source, (current) => {
      const merged: Record<string, unknown> = { ...current };
      for (const [field, value] of Object.entries(changes)) {
        if (value === null) delete merged[field];
        else merged[field] = value;
      }
      return merged;
    });
    return site;
  }

  /**
   * Makes the site exactly `body` (a whole site, as a YAML file holds it): creates it when it does
   * not exist, else replaces it. The path a git pipeline uses; applying the same file twice makes
   * no new version (`changed` is false).
   */
  async put(
    principal: Principal,
    siteId: string,
    body: unknown,
    source: ChangeSource = "api",
  ): Promise<{ site: SiteView; created: boolean; changed: boolean }> {
    const whole = wholeSite(siteId, body);
    if ((await this.ownedOrAbsent(principal, siteId)) === undefined) {
      try {
        return { site: await this.create(principal, whole, source), created: true, changed: true };
      } catch (error) {
        // Another writer created it meanwhile (two instances loading sites/ at once): update it.
        const raced = await this.store.sites.get(siteId);
        if (!isServiceError(error) || error.code !== "conflict" || raced === undefined) throw error;
        await this.ownedOrAbsent(principal, siteId);
      }
    }
    const complete = this.rules.accept<SiteConfig>("site-create", whole);
    const { site, changed } = await this.change(principal, siteId, source, () => complete);
    return { site, created: false, changed };
  }

  /** What `put` would do with `body`, checked the same way, without writing anything. */
  async plan(principal: Principal, siteId: string, body: unknown): Promise<SitePlan> {
    const whole = wholeSite(siteId, body);
    const existing = await this.ownedOrAbsent(principal, siteId);
    if (existing === undefined) {
      if (principal.siteIds !== undefined) throw cannotCreate();
      const site = this.normalize(this.rules.accept<SiteConfig>("site-create", whole));
      await assertRoomForSite(this.store, principal.workspaceId);
      await assertDomainsFree(this.store, principal.workspaceId, site);
      return {
        site_id: siteId,
        action: "create",
        version: null,
        source: null,
        changes: diffSites({}, site),
      };
    }
    const current = this.decode(existing);
    const site = this.prepare(siteId, this.rules.accept<SiteConfig>("site-create", whole), current);
    await assertDomainsFree(this.store, principal.workspaceId, site);
    const unchanged = this.hash(site) === existing.content_hash;
    const [latest] = await this.store.sites.listVersions(siteId, { limit: 1 });
    return {
      site_id: siteId,
      action: unchanged ? "unchanged" : "update",
      version: existing.version,
      source: latest?.source ?? null,
      changes: unchanged ? [] : diffSites(current, site),
    };
  }

  /** A new version whose content is that of version `version`; none when it already is. */
  async restore(principal: Principal, siteId: string, version: number): Promise<SiteView> {
    await this.owned(principal, siteId);
    const old = await this.store.sites.getVersion(siteId, version);
    if (old === undefined) throw errors.notFound(`Version ${version} of site`, siteId);
    const content = this.decode(old);
    return (await this.change(principal, siteId, "api", () => content)).site;
  }

  async versions(
    principal: Principal,
    siteId: string,
    query: { limit: number; before?: number },
  ): Promise<{ items: SiteVersionView[]; next?: number }> {
    await this.owned(principal, siteId, { cached: true });
    const rows = await this.store.sites.listVersions(siteId, { ...query, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    return {
      items: page.map((row) => versionView(row)),
      next: rows.length > query.limit ? page.at(-1)?.version : undefined,
    };
  }

  async version(
    principal: Principal,
    siteId: string,
    version: number,
  ): Promise<SiteVersionView & { site: SiteConfig }> {
    await this.owned(principal, siteId, { cached: true });
    const row = await this.store.sites.getVersion(siteId, version);
    if (row === undefined) throw errors.notFound(`Version ${version} of site`, siteId);
    return {
      ...versionView(row),
      site: maskSiteSecrets(this.decode(row)),
    };
  }

  /**
   * The one write path of an existing site: `next` turns the current config (secrets opened)
   * into the new one, which is validated whole. Writes only from the version it read, retrying
   * when another writer won; no change, no new version.
   */
  private async change(
    principal: Principal,
    siteId: string,
    source: ChangeSource,
    next: (current: SiteConfig) => object,
  ): Promise<{ site: SiteView; changed: boolean }> {
    for (let attempt = 0; ; attempt++) {
      const row = await this.owned(principal, siteId);
      const current = this.decode(row);
      const site = this.prepare(siteId, next(current), current);
      const columns = this.columns(site);
      if (columns.content_hash === row.content_hash)
        return { site: this.view(row), changed: false };
      const updated: SiteRow = {
        ...row,
        ...columns,
        version: row.version + 1,
        updated_at: this.now(),
      };
      const written = await this.store.transaction(async (tx) => {
        if (!(await tx.sites.update(siteId, row.version, updated))) return false;
        await assertDomainsFree(tx, principal.workspaceId, site);
        await claimDomains(tx, principal.workspaceId, site);
        await tx.sites.insertVersion(this.versionRow(updated, source, principal));
        return true;
      });
      if (written) {
        await this.cache.changed(siteId);
        return { site: this.view(updated), changed: true };
      }
      if (attempt >= 4) {
        throw errors.conflict(`Site '${siteId}' is being changed by another request; retry`);
      }
    }
  }

  /**
   * `proposed` made ready to store: masked secrets sent back replaced by the `current` ones, then
   * validated whole, normalized, and its adapter config checked by the adapter's plugin.
   */
  private prepare(siteId: string, proposed: object, current: SiteConfig): SiteConfig {
    const incoming = { ...proposed, site_id: siteId } as { adapter?: unknown };
    return this.normalize(
      this.rules.accept<SiteConfig>(
        "site",
        keepSecrets(incoming, current, this.sameDestination(incoming.adapter, current.adapter)),
      ),
    );
  }

  /**
   * Whether two adapters send their secrets to the same place: the same type, and the same
   * destination as the adapter's plugin tells it (or, when it does not, the same config but for
   * its secrets).
   */
  private sameDestination(next: unknown, current: SiteConfig["adapter"]): boolean {
    if (current === undefined || typeof next !== "object" || next === null) return false;
    const { type, config } = next as { type?: unknown; config?: unknown };
    if (type !== current.type) return false;
    const where = (value: unknown) =>
      this.plugins.destination("adapter", current.type, value) ?? stableJson(withoutSecrets(value));
    return where(config) === where(current.config);
  }

  async delete(principal: Principal, siteId: string): Promise<void> {
    const row = await this.owned(principal, siteId);
    await this.store.sites.delete(siteId);
    await this.cache.changed(siteId);
    await this.events?.emit({
      type: "site.deleted",
      workspace_id: row.workspace_id,
      site_id: siteId,
      data: { site_id: siteId, business_name: row.business_name, deleted_by: actorOf(principal) },
    });
  }

  /**
   * The stored row of a site the principal may touch: 403 for a key limited to others, else 404.
   * Reads may take it from the cache; writes read the store, as they must start from the latest.
   */
  private async owned(
    principal: Principal,
    siteId: string,
    options: { cached?: boolean } = {},
  ): Promise<SiteRow> {
    assertSiteAllowed(principal, siteId);
    const row = options.cached
      ? await this.cache.get(siteId, (id) => this.store.sites.get(id))
      : await this.store.sites.get(siteId);
    if (row === undefined || row.workspace_id !== principal.workspaceId)
      throw errors.notFound("Site", siteId);
    return row;
  }

  /**
   * The row of a site the principal may write, or undefined when no site has that id. Site ids
   * are global: one taken by another workspace cannot be created here (409).
   */
  private async ownedOrAbsent(principal: Principal, siteId: string): Promise<SiteRow | undefined> {
    assertSiteAllowed(principal, siteId);
    const row = await this.store.sites.get(siteId);
    if (row !== undefined && row.workspace_id !== principal.workspaceId) throw duplicate(siteId);
    return row;
  }

  private normalize(site: SiteConfig): SiteConfig {
    return normalizeSite(site);
  }

  /** The stored columns of a validated site: sealed config, searchable copies, content hash. */
  private columns(site: SiteConfig) {
    return {
      business_name: site.business_name,
      domain: site.domain,
      config: JSON.stringify(sealSiteSecrets(site, this.ring)),
      content_hash: this.hash(site),
    };
  }

  private versionRow(row: SiteRow, source: ChangeSource, principal: Principal): SiteVersionRow {
    return {
      site_id: row.site_id,
      version: row.version,
      config: row.config,
      content_hash: row.content_hash,
      source,
      actor: actorOf(principal),
      created_at: row.updated_at,
    };
  }

  /** The site's config with secrets opened; stays inside the service. */
  private decode(row: { config: string }): SiteConfig {
    return openStoredSite<SiteConfig>(row.config, this.ring);
  }

  /**
   * The opened config of a cached row, decoded once per row the cache holds (the widget path
   * reads it on every call). Callers must not change it.
   */
  private decodeCached(row: SiteRow): SiteConfig {
    let site = this.decoded.get(row);
    if (site === undefined) {
      site = this.decode(row);
      this.decoded.set(row, site);
    }
    return site;
  }

  private view(row: SiteRow): SiteView {
    return {
      ...maskSiteSecrets(this.decode(row)),
      version: row.version,
      created_at: new Date(row.created_at).toISOString(),
      updated_at: new Date(row.updated_at).toISOString(),
    };
  }
}

/** A version as listed: who changed the site, how, and when. */
export interface SiteVersionView {
  version: number;
  source: ChangeSource;
  actor: string;
  content_hash: string;
  created_at: string;
}

const versionView = (row: SiteVersionRow): SiteVersionView => ({
  version: row.version,
  source: row.source,
  actor: row.actor,
  content_hash: row.content_hash,
  created_at: new Date(row.created_at).toISOString(),
});

const duplicate = (siteId: string) =>
  errors.conflict(`A site with site_id '${siteId}' already exists`, {
    field: "site_id",
    site_id: siteId,
  });

const cannotCreate = () =>
  errors.forbidden("This API key is limited to some sites and cannot create new ones");

/** 422 plan_limit when the workspace already has as many sites as its plan allows. */
async function assertRoomForSite(store: Store, workspaceId: string): Promise<void> {
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

/** keepMaskedSecrets, its refusal answered as 422 naming the secret's field. */
function keepSecrets<T extends { adapter?: unknown }>(
  incoming: T,
  stored: { adapter?: unknown },
  sameDestination: boolean,
): T {
  try {
    return keepMaskedSecrets(incoming, stored, sameDestination);
  } catch (error) {
    if (!(error instanceof MaskedSecretError)) throw error;
    throw errors.validationFailed(error.message, { field: error.field, reason: error.reason });
  }
}

/** A whole site for `siteId`: an object whose site_id, when given, is that of the path. */
function wholeSite(siteId: string, body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw errors.invalidRequest("The body must be an object", { field: "body" });
  }
  const given = (body as { site_id?: unknown }).site_id;
  if (given !== undefined && given !== siteId) {
    throw errors.invalidRequest(
      `site_id '${String(given)}' does not match the path's '${siteId}'`,
      {
        field: "site_id",
      },
    );
  }
  return { ...structuredClone(body as object), site_id: siteId };
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
