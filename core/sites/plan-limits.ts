import type { Plan } from "../settings.ts";

/** Sites per plan (the API reference, "Limits"); undefined = unlimited. */
export const SITES_PER_PLAN: Record<Plan, number | undefined> = {
  free: 1,
  starter: 5,
  pro: 50,
  business: undefined,
  enterprise: undefined,
};
