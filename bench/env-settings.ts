/**
 * The settings the standalone benchmarks read from the environment themselves (BENCH_EVENTS_*,
 * BENCH_ANALYTICS_*): an unset or empty variable takes its default, anything else must be valid
 * or the benchmark stops before it starts anything.
 */
import type { DatabaseName } from "./events-db.ts";

/** An integer from 1 to `max`. */
export function intSetting(name: string, fallback: number, max: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw.trim() === "" ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new Error(`${name} must be an integer from 1 to ${max}: ${raw}`);
  }
  return value;
}

/** A comma-separated list of sqlite and/or postgres; both by default. */
export function databasesSetting(name: string): DatabaseName[] {
  const raw = process.env[name];
  const names = (raw === undefined || raw.trim() === "" ? "sqlite,postgres" : raw)
    .split(",")
    .map((item) => item.trim());
  for (const item of names) {
    if (item !== "sqlite" && item !== "postgres") {
      throw new Error(`${name}: sqlite and/or postgres, not ${item}`);
    }
  }
  return names as DatabaseName[];
}
