/**
 * How a site is stored and shown: its config sealed into a row (secrets sealed with the key
 * ring, name and domain copied for search, the content hash), opened from one, and masked as
 * answered. Nothing here reads or writes the store.
 */
import { actorOf, type Principal } from "../auth/principal.ts";
import type { KeyRing } from "../security/secret-box.ts";
import type { SiteRow, SiteVersionRow } from "../store/repos/sites-repo.ts";
import { contentHasher, type ContentHasher } from "./content-hash.ts";
import { maskSiteSecrets, openStoredSite, sealSiteSecrets } from "./site-secrets.ts";
import type { SiteConfig } from "./site-types.ts";

export type ChangeSource = SiteVersionRow["source"];

/** A site as answered: the config with secrets masked, plus its version and times. */
export type SiteView = SiteConfig & { version: number; created_at: string; updated_at: string };

/** A version as listed: who changed the site, how, and when. */
export interface SiteVersionView {
  version: number;
  source: ChangeSource;
  actor: string;
  content_hash: string;
  created_at: string;
}

export class SiteCodec {
  readonly hash: ContentHasher;
  /** Opened configs of the rows the cache holds; a row that leaves the cache takes its entry. */
  readonly #decoded = new WeakMap<SiteRow, SiteConfig>();
  readonly #views = new WeakMap<SiteRow, SiteView>();

  constructor(private readonly ring: KeyRing) {
    this.hash = contentHasher(ring);
  }

  /** The stored columns of a validated site: sealed config, searchable copies, content hash. */
  columns(site: SiteConfig) {
    return {
      business_name: site.business_name,
      domain: site.domain,
      config: JSON.stringify(sealSiteSecrets(site, this.ring)),
      content_hash: this.hash(site),
    };
  }

  /** The version row recording `row` as changed by `principal` through `source`. */
  versionRow(row: SiteRow, source: ChangeSource, principal: Principal): SiteVersionRow {
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
  decode(row: { config: string }): SiteConfig {
    return openStoredSite<SiteConfig>(row.config, this.ring);
  }

  /**
   * The opened config of a cached row, decoded once per row the cache holds (the widget path
   * reads it on every call). Callers must not change it.
   */
  decodeCached(row: SiteRow): SiteConfig {
    let site = this.#decoded.get(row);
    if (site === undefined) {
      site = this.decode(row);
      this.#decoded.set(row, site);
    }
    return site;
  }

  /**
   * What the API shows of a row: secrets masked, with its version and times. Made once per row
   * object (a cached row is read on every GET; a row changes only as a new object). Callers
   * send it as it is and must not change it.
   */
  view(row: SiteRow): SiteView {
    let view = this.#views.get(row);
    if (view === undefined) {
      view = {
        ...maskSiteSecrets(this.decode(row)),
        version: row.version,
        created_at: new Date(row.created_at).toISOString(),
        updated_at: new Date(row.updated_at).toISOString(),
      };
      this.#views.set(row, view);
    }
    return view;
  }
}

export const versionView = (row: SiteVersionRow): SiteVersionView => ({
  version: row.version,
  source: row.source,
  actor: row.actor,
  content_hash: row.content_hash,
  created_at: new Date(row.created_at).toISOString(),
});
