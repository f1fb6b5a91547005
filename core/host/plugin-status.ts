/**
 * What the host records of each registered plugin beyond its definition: its status (registered,
 * active, failed), what the service uses it for, and the summary the health and admin views show,
 * where a plugin that lives but that the service calls for nothing reads "unused", not "active".
 */
import type { CheckedPlugin } from "./check-definition.ts";
import type { PluginKind } from "./plugin.ts";

export type PluginStatus = "registered" | "active" | "unused" | "failed";

/** One row of `list()`, for the health and admin views. */
export interface PluginSummary {
  name: string;
  kind: PluginKind;
  type?: string;
  source: string;
  /**
   * "active" once an instance lives; "unused" when it lives but the service calls it for nothing
   * (see PICKED_KINDS); "failed" when its global instance could not be made.
   */
  status: PluginStatus;
  error?: string;
  /** Why an "unused" plugin is unused, or what a picked one is in use for. */
  note?: string;
}

/** A registered plugin as the host keeps it: checked, with its status. */
export interface Registration extends CheckedPlugin {
  status: PluginStatus;
  error: string | undefined;
  /** What the service uses the plugin's global instance for, once it picked it (`useGlobal`). */
  usedFor: string | undefined;
}

/**
 * Kinds the service calls only through the one instance it picks (`useGlobal`), and why another
 * is unused: health says so rather than "active", so an operator does not believe it at work.
 */
const PICKED_KINDS: Partial<Record<PluginKind, string>> = {
  auth:
    "loaded but not used: the dashboard's sign-in takes the first auth plugin that gives " +
    "passwords, and the service calls no auth plugin's authenticate yet",
};

/** The row of `list()` for one registered plugin. */
export function summarize({
  name,
  kind,
  type,
  source,
  status,
  error,
  usedFor,
}: Registration): PluginSummary {
  const unused = PICKED_KINDS[kind];
  if (status !== "active" || unused === undefined)
    return { name, kind, type, source, status, error };
  return usedFor === undefined
    ? { name, kind, type, source, status: "unused", error, note: unused }
    : { name, kind, type, source, status, error, note: `in use for ${usedFor}` };
}
