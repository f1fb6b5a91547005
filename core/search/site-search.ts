/**
 * A search on a site: its adapter plugin's instance for the site's current config, the params
 * checked against the collection, and the run with its deadline. Shared by the query endpoint and
 * `sitevoice adapters test`.
 */
import { errors } from "../errors.ts";
import { PluginConfigError, PluginCreateError } from "../host/plugin-errors.ts";
import type { DataAdapter } from "../host/plugin.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import type { SiteConfig } from "../sites/site-types.ts";
import { checkSearch, collectionOf, parseSearchParams } from "./check-search.ts";
import { runSearch, type QueryResult, type RunSearchOptions } from "./run-search.ts";

/** The adapter instance serving `site` (one per site and config; a new config replaces it). */
export async function siteAdapter(
  plugins: PluginHost,
  site: SiteConfig,
): Promise<{ adapter: DataAdapter; config: NonNullable<SiteConfig["adapter"]> }> {
  const config = site.adapter;
  if (config === undefined)
    throw errors.validationFailed(`Site '${site.site_id}' has no data adapter`, {
      field: "adapter",
    });
  if (plugins.find("adapter", config.type) === undefined) {
    throw errors.adapterError(`no adapter plugin serves type "${config.type}"`);
  }
  try {
    const adapter = await plugins.instance("adapter", config.type, config.config, site.site_id);
    return { adapter, config };
  } catch (error) {
    // The plugin's own message, which names the plugin and the field, never a secret value.
    if (error instanceof PluginConfigError || error instanceof PluginCreateError) {
      throw errors.adapterError(error.message);
    }
    throw error;
  }
}

export async function searchSite(
  plugins: PluginHost,
  site: SiteConfig,
  body: unknown,
  options: RunSearchOptions = {},
): Promise<QueryResult> {
  const params = parseSearchParams(body);
  if (site.adapter === undefined) {
    throw errors.validationFailed(`Site '${site.site_id}' has no data adapter to search`, {
      field: "adapter",
    });
  }
  const collections = site.adapter.collections;
  const collection = collectionOf(collections, params.collection);
  const query = checkSearch(collection, params);
  const { adapter } = await siteAdapter(plugins, site);
  return runSearch(adapter, collection, query, options);
}
