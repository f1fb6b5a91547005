/**
 * What the host records of each registered plugin beyond its definition: its status (registered,
 * active, failed) and the summary the health and admin views show, where a kind the service does
 * not call yet reads "unused" rather than "active".
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
   * "active" once an instance lives; "unused" when it lives but the service does not call its
   * kind yet (see UNUSED_KINDS); "failed" when its global instance could not be made.
   */
  status: PluginStatus;
  error?: string;
  /** Why an "unused" plugin is unused. */
  note?: string;
}

/** A registered plugin as the host keeps it: checked, with its status. */
export interface Registration extends CheckedPlugin {
  status: PluginStatus;
  error: string | undefined;
}

/**
 * Kinds the host loads and starts but the service does not call yet, and why: health says so
 * rather than "active", so an operator does not believe a plugin is at work.
 */
const UNUSED_KINDS: Partial<Record<PluginKind, string>> = {
  auth: "auth plugins are loaded but not called yet: the dashboard's sign-in will use them",
};

/** The row of `list()` for one registered plugin. */
export function summarize({
  name,
  kind,
  type,
  source,
  status,
  error,
}: Registration): PluginSummary {
  const note = status === "active" ? UNUSED_KINDS[kind] : undefined;
  return note === undefined
    ? { name, kind, type, source, status, error }
    : { name, kind, type, source, status: "unused", error, note };
}
