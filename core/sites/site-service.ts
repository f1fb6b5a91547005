/**
 * Sites: what the API, the CLI and the start-up load ask of them (list, read, create, patch, put
 * a whole site, plan it, restore a version, delete), each change a new version. The work is done
 * by the parts it is made of: access (who may touch which site), the rules (site-rules.ts,
 * shared with `sitevoice validate`), the codec (sealed at rest, masked on read) and the writer
 * (versions, domains, events).
 */
import type { Principal } from "../auth/principal.ts";
import { errors, isServiceError } from "../errors.ts";
import type { EventBus } from "../events/event-bus.ts";
import type { KeyRing } from "../security/secret-box.ts";
import type { SiteCursor } from "../store/repos/sites-repo.ts";
import type { Store } from "../store/store.ts";
import { problemsError } from "../validation/problems-error.ts";
import { schemaProblems } from "../validation/schema-validator.ts";
import { SiteAccess } from "./site-access.ts";
import type { SiteCache } from "./site-cache.ts";
import { SiteChecker } from "./site-checker.ts";
import {
  SiteCodec,
  versionView,
  type ChangeSource,
  type SiteVersionView,
  type SiteView,
} from "./site-codec.ts";
import { diffSites, type FieldChange } from "./site-diff.ts";
import { assertDomainsFree } from "./site-domains.ts";
import type { SiteRules } from "./site-rules.ts";
import { maskSiteSecrets } from "./site-secrets.ts";
import type { PublicSite, SiteConfig } from "./site-types.ts";
import {
  assertRoomForSite,
  cannotCreate,
  normalizeSite,
  SiteWriter,
  storedShape,
} from "./site-writer.ts";
import { keysetPage } from "../util/keyset-page.ts";

export type { ChangeSource, SiteVersionView, SiteView };
export { normalizeSite, storedShape };

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

export interface SiteListPage {
  items: SiteView[];
  next?: SiteCursor;
}

export interface SiteServiceParts {
  store: Store;
  ring: KeyRing;
  /** What a whole site must satisfy, shared with `sitevoice validate`. */
  rules: SiteRules;
  /** Holds rows for reads and hears of changes made by other instances. */
  cache: SiteCache;
  /** Records `site.deleted` in the transaction of the delete. */
  events: EventBus;
  now?: () => number;
}

export const isSiteCursor = (value: unknown): value is SiteCursor =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as SiteCursor).created_at === "number" &&
  typeof (value as SiteCursor).site_id === "string";

export class SiteService {
  readonly cache: SiteCache;
  private readonly store: Store;
  private readonly rules: SiteRules;
  private readonly codec: SiteCodec;
  private readonly access: SiteAccess;
  private readonly checker: SiteChecker;
  private readonly writer: SiteWriter;

  constructor(parts: SiteServiceParts) {
    this.store = parts.store;
    this.rules = parts.rules;
    this.cache = parts.cache;
    this.codec = new SiteCodec(parts.ring);
    this.access = new SiteAccess(parts.store, parts.cache);
    this.checker = new SiteChecker(parts.store, parts.rules);
    this.writer = new SiteWriter({
      ...parts,
      codec: this.codec,
      access: this.access,
      checker: this.checker,
      now: parts.now ?? Date.now,
    });
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
    return keysetPage(
      rows,
      query.limit,
      (row) => this.codec.view(row),
      (last) => ({ created_at: last.created_at, site_id: last.site_id }),
    );
  }

  /**
   * The site's config with its secrets open, for the service's own use (an adapter needs its
   * credentials); never answered to a client. Read through the cache.
   */
  async openConfig(
    principal: Principal,
    siteId: string,
  ): Promise<SiteConfig & { version: number }> {
    const row = await this.access.owned(principal, siteId, { cached: true });
    return { ...this.codec.decode(row), version: row.version };
  }

  /**
   * A site as the widget endpoints need it, found by id alone (they have no workspace key):
   * the opened config, its workspace and version; undefined for an unknown site. Cached.
   */
  async publicSite(siteId: string): Promise<PublicSite | undefined> {
    if (!/^[a-z0-9][a-z0-9_-]{2,62}$/.test(siteId)) return undefined;
    const row = await this.access.cached(siteId);
    if (row === undefined) return undefined;
    return {
      site: this.codec.decodeCached(row),
      workspaceId: row.workspace_id,
      version: row.version,
    };
  }

  /** 403 or 404 unless the principal may read the site; opens nothing. Read through the cache. */
  async assertOwned(principal: Principal, siteId: string): Promise<void> {
    await this.access.owned(principal, siteId, { cached: true });
  }

  async get(principal: Principal, siteId: string): Promise<SiteView> {
    return this.codec.view(await this.access.owned(principal, siteId, { cached: true }));
  }

  create(principal: Principal, body: unknown, source: ChangeSource = "api"): Promise<SiteView> {
    return this.writer.create(principal, body, source);
  }

  /**
   * Replaces the top-level fields given in `body` (a field set to null is removed where the schema
   * allows it). A masked secret sent back means "unchanged". No change, no new version. The
   * patch's own problems are listed with those of the site it makes, so one answer has them all.
   */
  async patch(
    principal: Principal,
    siteId: string,
    body: unknown,
    source: ChangeSource = "api",
  ): Promise<SiteView> {
    const changes = structuredClone(body);
    const problems = schemaProblems("site-patch", changes);
    if (typeof changes !== "object" || changes === null || Array.isArray(changes)) {
      throw problemsError(problems);
    }
    const merge = (current: SiteConfig) => {
      const merged: Record<string, unknown> = { ...current };
      for (const [field, value] of Object.entries(changes)) {
        if (value === null) delete merged[field];
        else merged[field] = value;
      }
      return merged;
    };
    return (await this.writer.change(principal, siteId, source, merge, { earlier: problems })).site;
  }

  /**
   * Makes the site exactly `body` (a whole site, as a YAML file holds it): creates it when it does
   * not exist, else replaces it. The path a git pipeline uses; applying the same file twice makes
   * no new version (`changed` is false). With `ifVersion`, only replaces the site while it is at
   * that version (409 otherwise), and never creates it.
   */
  async put(
    principal: Principal,
    siteId: string,
    body: unknown,
    source: ChangeSource = "api",
    options: { ifVersion?: number } = {},
  ): Promise<{ site: SiteView; created: boolean; changed: boolean }> {
    const whole = wholeSite(siteId, body);
    const absent = (await this.access.ownedOrAbsent(principal, siteId)) === undefined;
    if (absent && options.ifVersion !== undefined) {
      throw errors.conflict(`Site '${siteId}' was deleted meanwhile`);
    }
    if (absent) {
      try {
        return { site: await this.create(principal, whole, source), created: true, changed: true };
      } catch (error) {
        // Another writer created it meanwhile (two instances loading sites/ at once): update it.
        const raced = await this.store.sites.get(siteId);
        if (!isServiceError(error) || error.code !== "conflict" || raced === undefined) throw error;
        await this.access.ownedOrAbsent(principal, siteId);
      }
    }
    const scope = { workspaceId: principal.workspaceId, siteId };
    const complete = await this.checker.accept<SiteConfig>("site-create", whole, scope);
    const { site, changed } = await this.writer.change(
      principal,
      siteId,
      source,
      () => complete,
      options,
    );
    return { site, created: false, changed };
  }

  /** What `put` would do with `body`, checked the same way, without writing anything. */
  async plan(principal: Principal, siteId: string, body: unknown): Promise<SitePlan> {
    const whole = wholeSite(siteId, body);
    const existing = await this.access.ownedOrAbsent(principal, siteId);
    const scope = { workspaceId: principal.workspaceId, siteId };
    if (existing === undefined) {
      if (principal.siteIds !== undefined) throw cannotCreate();
      const site = normalizeSite(
        await this.checker.accept<SiteConfig>("site-create", whole, scope),
      );
      await assertRoomForSite(this.store, principal.workspaceId);
      await assertDomainsFree(this.store, principal.workspaceId, site);
      const changes = diffSites({}, site);
      return { site_id: siteId, action: "create", version: null, source: null, changes };
    }
    const current = this.codec.decode(existing);
    const checked = await this.checker.accept<SiteConfig>("site-create", whole, scope);
    const site = await this.writer.prepare(scope, checked, current);
    await assertDomainsFree(this.store, principal.workspaceId, site);
    const unchanged = this.codec.hash(site) === existing.content_hash;
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
    await this.access.owned(principal, siteId);
    const old = await this.store.sites.getVersion(siteId, version);
    if (old === undefined) throw errors.notFound(`Version ${version} of site`, siteId);
    const content = this.codec.decode(old);
    return (await this.writer.change(principal, siteId, "api", () => content)).site;
  }

  async versions(
    principal: Principal,
    siteId: string,
    query: { limit: number; before?: number },
  ): Promise<{ items: SiteVersionView[]; next?: number }> {
    await this.access.owned(principal, siteId, { cached: true });
    const rows = await this.store.sites.listVersions(siteId, { ...query, limit: query.limit + 1 });
    return keysetPage(rows, query.limit, versionView, (last) => last.version);
  }

  async version(
    principal: Principal,
    siteId: string,
    version: number,
  ): Promise<SiteVersionView & { site: SiteConfig }> {
    await this.access.owned(principal, siteId, { cached: true });
    const row = await this.store.sites.getVersion(siteId, version);
    if (row === undefined) throw errors.notFound(`Version ${version} of site`, siteId);
    return { ...versionView(row), site: maskSiteSecrets(this.codec.decode(row)) };
  }

  delete(principal: Principal, siteId: string): Promise<void> {
    return this.writer.delete(principal, siteId);
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
