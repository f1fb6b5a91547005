/**
 * The plans of the API reference and the voice minutes each bundles a calendar month: SITEVOICE_PLAN_MINUTES
 * over DEFAULT_PLAN_MINUTES, whose crossings `usage.threshold` announces.
 */
import { oneOf, SettingsError } from "./settings-values.ts";

export type Plan = "free" | "starter" | "pro" | "business" | "enterprise";
export const PLANS: readonly Plan[] = ["free", "starter", "pro", "business", "enterprise"];

/** The minutes a month each plan bundles unless SITEVOICE_PLAN_MINUTES says otherwise. */
export const DEFAULT_PLAN_MINUTES: Readonly<Partial<Record<Plan, number>>> = Object.freeze({
  free: 100,
  starter: 1_000,
  pro: 5_000,
  business: 20_000,
});

/**
 * SITEVOICE_PLAN_MINUTES: comma-separated `plan=minutes` entries over DEFAULT_PLAN_MINUTES, each
 * a whole number of minutes (1 to 10,000,000) or `unlimited` (no bundle, no threshold events).
 */
export function parsePlanMinutes(raw: string | undefined): Readonly<Partial<Record<Plan, number>>> {
  const variable = "SITEVOICE_PLAN_MINUTES";
  const minutes: Partial<Record<Plan, number>> = { ...DEFAULT_PLAN_MINUTES };
  const given = new Set<string>();
  for (const entry of (raw ?? "").split(",").map((part) => part.trim())) {
    if (entry === "") continue;
    const match = /^([a-z]+)\s*=\s*(\S+)$/.exec(entry);
    if (match === null) {
      throw new SettingsError(variable, `"${entry}" is not plan=minutes (such as pro=5000)`);
    }
    const plan = oneOf(variable, match[1]!, PLANS);
    if (given.has(plan)) throw new SettingsError(variable, `${plan} is given twice`);
    given.add(plan);
    const value = match[2]!;
    if (value === "unlimited") {
      delete minutes[plan];
      continue;
    }
    if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 10_000_000) {
      throw new SettingsError(
        variable,
        `${plan}: must be whole minutes from 1 to 10000000, or unlimited (got "${value}")`,
      );
    }
    minutes[plan] = Number(value);
  }
  return Object.freeze(minutes);
}
