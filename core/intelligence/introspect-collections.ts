/**
 * What each collection of a site's adapter holds, for the site-intelligence answer: the adapter's
 * `introspect`, bounded by the search's deadline and run a few at a time, then cut down to what
 * the widget may see anyway. The answer is public (an Origin header is easy to forge outside a
 * browser), so a field is listed only when the collection's config allows it (searchable,
 * filterable or display), a sample only when searches return that field, and a failure only as a
 * short message of ours: the adapter's own words (which may name hosts) go to the log.
 */
import PQueue from "p-queue";
import type { Logger } from "pino";
import { isServiceError } from "../errors.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import type { DataAdapter } from "../host/plugin.ts";
import { allowedFields, collectionOf, returnedFields } from "../search/check-search.ts";
import { ADAPTER_TIMEOUT_MS } from "../search/run-search.ts";
import {
  FIELD_TYPES,
  type CollectionIntrospection,
  type CollectionSpec,
  type FieldType,
} from "../search/search-types.ts";
import { siteAdapter } from "../search/site-search.ts";
import type { SiteConfig } from "../sites/site-types.ts";
import { messageWithCause } from "../util/message-of.ts";
import type { CollectionView, DataView, FieldView } from "./site-intelligence-types.ts";

/** Collections of one site introspected at once. */
export const INTROSPECTION_CONCURRENCY = 4;

export const INTROSPECTION_ERRORS = {
  timeout: (ms: number) => `introspection timed out after ${ms / 1000} s`,
  unsupported: "the data adapter cannot describe its collections",
  unavailable: "the data adapter is not available",
  failed: "introspection failed",
} as const;

const MAX_SAMPLE_STRING = 120;
const MAX_SAMPLE_JSON = 300;
const MAX_DESCRIPTION = 500;

export interface IntrospectOptions {
  logger: Logger;
  timeoutMs?: number;
}

/** The collections of `site`'s adapter, in config order; undefined when it has no adapter. */
export async function introspectCollections(
  plugins: PluginHost,
  site: SiteConfig,
  options: IntrospectOptions,
): Promise<DataView | undefined> {
  if (site.adapter === undefined) return undefined;
  const specs = Object.keys(site.adapter.collections).map((name) =>
    collectionOf(site.adapter!.collections, name),
  );
  const log = options.logger.child({ site_id: site.site_id });
  let adapter: DataAdapter;
  try {
    adapter = (await siteAdapter(plugins, site)).adapter;
  } catch (error) {
    log.warn({ err: messageWithCause(error) }, "site intelligence: no adapter to introspect");
    return { collections: specs.map((spec) => failed(spec, INTROSPECTION_ERRORS.unavailable)) };
  }
  const timeoutMs = options.timeoutMs ?? ADAPTER_TIMEOUT_MS;
  const queue = new PQueue({ concurrency: INTROSPECTION_CONCURRENCY });
  const collections = await Promise.all(
    specs.map((spec) =>
      queue.add(async (): Promise<CollectionView> => {
        try {
          return viewOf(spec, await introspectOne(adapter, spec, timeoutMs));
        } catch (error) {
          log.warn(
            { collection: spec.name, err: messageWithCause(error) },
            "site intelligence: introspection failed",
          );
          return failed(spec, publicMessage(error, timeoutMs));
        }
      }),
    ),
  );
  return { collections };
}

class IntrospectionTimeout extends Error {}
class Unsupported extends Error {}

/** The adapter's answer, or a rejection at the deadline (the adapter's signal aborted too). */
async function introspectOne(
  adapter: DataAdapter,
  spec: CollectionSpec,
  timeoutMs: number,
): Promise<CollectionIntrospection> {
  if (adapter.introspect === undefined) throw new Unsupported("no introspect");
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const timeout = new IntrospectionTimeout(`no answer within ${timeoutMs} ms`);
      controller.abort(timeout);
      reject(timeout);
    }, timeoutMs);
  });
  try {
    // The race answers at the deadline even if an adapter ignores its signal.
    return await Promise.race([adapter.introspect(spec, { signal: controller.signal }), deadline]);
  } finally {
    clearTimeout(timer);
    if (!controller.signal.aborted) controller.abort(new Error("introspection ended"));
  }
}

function publicMessage(error: unknown, timeoutMs: number): string {
  if (error instanceof IntrospectionTimeout) return INTROSPECTION_ERRORS.timeout(timeoutMs);
  if (isServiceError(error) && error.code === "adapter_timeout") {
    return INTROSPECTION_ERRORS.timeout(timeoutMs);
  }
  if (error instanceof Unsupported) return INTROSPECTION_ERRORS.unsupported;
  return INTROSPECTION_ERRORS.failed;
}

function failed(spec: CollectionSpec, error: string): CollectionView {
  return { ...identity(spec), fields: [], error };
}

function identity(spec: CollectionSpec): Pick<CollectionView, "name" | "source" | "description"> {
  const description = spec.description?.trim();
  return {
    name: spec.name,
    source: spec.source,
    ...(description ? { description: description.slice(0, MAX_DESCRIPTION) } : {}),
  };
}

/**
 * The collection's allowed fields in config order, typed as the adapter found them (`unknown`
 * when it did not report one); whatever else the adapter reported is dropped.
 */
function viewOf(spec: CollectionSpec, found: CollectionIntrospection): CollectionView {
  const reported = new Map<string, { type?: unknown; sample?: unknown }>();
  for (const field of Array.isArray(found?.fields) ? found.fields : []) {
    if (typeof field?.name === "string" && !reported.has(field.name)) {
      reported.set(field.name, field);
    }
  }
  const returned = new Set(returnedFields(spec));
  const fields = allowedFields(spec).map((name): FieldView => {
    const field = reported.get(name);
    const view: FieldView = { name, type: fieldType(field?.type) };
    const sample = returned.has(name) ? boundedSample(field?.sample) : undefined;
    if (sample !== undefined) view.sample = sample;
    return view;
  });
  const view: CollectionView = { ...identity(spec), fields };
  const count = found?.recordCount;
  if (typeof count === "number" && Number.isSafeInteger(count) && count >= 0) {
    view.recordCount = count;
  }
  if (view.description === undefined && typeof found?.description === "string") {
    const description = found.description.trim().slice(0, MAX_DESCRIPTION);
    if (description !== "") view.description = description;
  }
  return view;
}

const fieldType = (type: unknown): FieldType =>
  (FIELD_TYPES as readonly unknown[]).includes(type) ? (type as FieldType) : "unknown";

/** A sample short enough to show, as JSON; undefined when there is none worth showing. */
function boundedSample(value: unknown): unknown {
  if (typeof value === "string") {
    return value.length > MAX_SAMPLE_STRING ? `${value.slice(0, MAX_SAMPLE_STRING)}…` : value;
  }
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "boolean") return value;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (typeof value === "object" && value !== null) {
    try {
      const json = JSON.stringify(value);
      return json !== undefined && json.length <= MAX_SAMPLE_JSON ? JSON.parse(json) : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
