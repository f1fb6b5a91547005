import type { Plan } from "../settings.ts";

/** Sites per plan (the API reference, "Limits"); undefined = unlimited. */
export const SITES_PER_PLAN: Record<Plan, number | undefined> = {
  free: 1,
  starter: 5,
  pro: 50,
  business: undefined,
  enterprise: undefined,
};

/** The plan's site limit in words, for messages: "1 site", "5 sites", "any number of sites". */
export function siteLimitText(plan: Plan): string {
  const limit = SITES_PER_PLAN[plan];
  if (limit === undefined) return "any number of sites";
  return limit === 1 ? "1 site" : `${limit} sites`;
}
