/**
 * Runs a checked search on an adapter: with a deadline that really cancels the backend call
 * (the adapter's AbortSignal), the adapter's answer checked, and the items cut down to the fields
 * the collection returns. Failures become the query errors of the API reference.
 */
import type { Logger } from "pino";
import { errors, isServiceError } from "../errors.ts";
import { PLUGIN_CALL_DEADLINE_MS, type DataAdapter } from "../host/plugin.ts";
import type { AdapterQuery, CollectionSpec } from "./search-types.ts";

/** The API reference: a backend slower than this is 504 adapter_timeout. */
export const ADAPTER_TIMEOUT_MS = PLUGIN_CALL_DEADLINE_MS;

/** The `data` of a successful query response (the API reference, "Query result"). */
export interface QueryResult {
  success: true;
  total: number;
  returned: number;
  items: Record<string, unknown>[];
}

export interface RunSearchOptions {
  timeoutMs?: number;
  /**
   * The one abort of the search: its signal is the adapter's, aborted here at the deadline and by
   * whoever made it (as when the client went away). Made here when not given.
   */
  abort?: AbortController;
  /** Receives one line per search: parameters, result size and latency, never the rows. */
  logger?: Logger;
  now?: () => number;
}

export async function runSearch(
  adapter: DataAdapter,
  collection: CollectionSpec,
  query: AdapterQuery,
  options: RunSearchOptions = {},
): Promise<QueryResult> {
  const timeoutMs = options.timeoutMs ?? ADAPTER_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const started = now();
  const controller = options.abort ?? new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const timeout = errors.adapterTimeout(timeoutMs);
      controller.abort(timeout);
      reject(timeout);
    }, timeoutMs);
  });
  const log = (fields: Record<string, unknown>, message: string) =>
    options.logger?.info(
      {
        collection: collection.name,
        text: query.text,
        filters: query.filters.map(({ field, operator }) => ({ field, operator })),
        sort: query.sort,
        limit: query.limit,
        latency_ms: now() - started,
        ...fields,
      },
      message,
    );
  try {
    // The race answers at the deadline even if an adapter ignores its signal.
    const result = await Promise.race([
      adapter.search(collection, query, { signal: controller.signal }),
      deadline,
    ]);
    if (!isResult(result)) throw errors.adapterError("the adapter returned an invalid result");
    if (!result.success) throw errors.adapterError(result.error);
    const items = result.items.slice(0, query.limit).map((item) => pick(item, query.fields));
    log({ total: result.total, returned: items.length }, "search");
    return { success: true, total: result.total, returned: items.length, items };
  } catch (error) {
    // Whatever still runs in the adapter is told to stop.
    if (!controller.signal.aborted) controller.abort(error);
    const failure = isServiceError(error)
      ? error
      : errors.adapterError("the adapter failed unexpectedly");
    log({ error: failure.code, message: failure.message }, "search failed");
    if (!isServiceError(error)) options.logger?.warn({ err: error }, "adapter threw");
    throw failure;
  } finally {
    clearTimeout(timer);
  }
}

function isResult(
  value: unknown,
): value is
  | { success: true; total: number; items: Record<string, unknown>[] }
  | { success: false; error: string } {
  if (typeof value !== "object" || value === null) return false;
  const result = value as Record<string, unknown>;
  if (result.success === false) return typeof result.error === "string";
  return (
    result.success === true &&
    typeof result.total === "number" &&
    Number.isFinite(result.total) &&
    Array.isArray(result.items) &&
    result.items.every((item) => typeof item === "object" && item !== null)
  );
}

/** The item's own `fields`, each an own field of the copy (even one named __proto__). */
function pick(item: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(
    fields.filter((field) => Object.hasOwn(item, field)).map((field) => [field, item[field]]),
  );
}
