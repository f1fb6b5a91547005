/**
 * `sitevoice adapters test <site_id>`: checks that a site's adapter reaches its backend and prints
 * what it finds in each collection (fields, types, a sample, the record count), the view the
 * site-intelligence work builds on. Exit code 1 when the connection or a collection fails.
 */
import type { PluginHost } from "../host/plugin-host.ts";
import type { Principal } from "../auth/principal.ts";
import type { SiteService } from "../sites/site-service.ts";
import { collectionOf } from "./check-search.ts";
import { ADAPTER_TIMEOUT_MS } from "./run-search.ts";
import { siteAdapter } from "./site-search.ts";
import { messageWithCause } from "../util/message-of.ts";

export interface AdaptersTestOptions {
  sites: SiteService;
  plugins: PluginHost;
  principal: Principal;
  out: (line: string) => void;
  timeoutMs?: number;
}

const SAMPLE_CHARS = 40;

export async function adaptersTestCommand(
  siteId: string,
  options: AdaptersTestOptions,
): Promise<number> {
  const { out } = options;
  const timeout = () => ({ signal: AbortSignal.timeout(options.timeoutMs ?? ADAPTER_TIMEOUT_MS) });
  const site = await options.sites.openConfig(options.principal, siteId);
  const { adapter, config } = await siteAdapter(options.plugins, site);
  const plugin = options.plugins.find("adapter", config.type);
  out(`site ${siteId}: adapter ${config.type} (${plugin?.name ?? "?"})`);

  let failed = 0;
  try {
    await adapter.test?.(timeout());
    out(
      adapter.test === undefined
        ? "connection: not checked (the adapter has no test)"
        : "connection: ok",
    );
  } catch (error) {
    out(`connection: FAILED: ${messageWithCause(error)}`);
    return 1;
  }
  for (const name of Object.keys(config.collections).sort()) {
    const collection = collectionOf(config.collections, name);
    if (adapter.introspect === undefined) {
      out(`collection ${name} (${collection.source}): the adapter cannot describe it`);
      continue;
    }
    try {
      const found = await adapter.introspect(collection, timeout());
      const count =
        found.recordCount === undefined
          ? "? records"
          : `${found.recordCount.toLocaleString("en-US")} records`;
      out(`collection ${name} (${collection.source}): ${count}`);
      const width = Math.max(4, ...found.fields.map((f) => f.name.length));
      for (const field of found.fields) {
        out(`  ${field.name.padEnd(width)}  ${field.type.padEnd(7)}  ${sample(field.sample)}`);
      }
    } catch (error) {
      failed += 1;
      out(`collection ${name} (${collection.source}): FAILED: ${messageWithCause(error)}`);
    }
  }
  return failed > 0 ? 1 : 0;
}

function sample(value: unknown): string {
  if (value === undefined) return "";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > SAMPLE_CHARS ? `${text.slice(0, SAMPLE_CHARS - 1)}…` : text;
}
