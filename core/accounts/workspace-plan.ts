/**
 * Changing a workspace's plan, the operator's act (`sitevoice workspace plan`; the start with
 * SITEVOICE_DEFAULT_PLAN). A smaller plan leaves the sites over its limit as they are: it refuses
 * new ones only.
 */
import { errors } from "../errors.ts";
import { PLANS, type Plan } from "../plans.ts";
import type { Store } from "../store/store.ts";

export interface PlanChange {
  previous: Plan;
  plan: Plan;
  /** The workspace's sites now, which may be more than the new plan allows. */
  sites: number;
}

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

/** Sets the workspace's plan; 404 for an unknown workspace, 400 for an unknown plan. */
export async function changePlan(
  store: Store,
  workspaceId: string,
  plan: string,
): Promise<PlanChange> {
  if (!isPlan(plan)) {
    throw errors.invalidRequest(`Unknown plan '${plan}': one of ${PLANS.join(", ")}`, {
      field: "plan",
    });
  }
  const workspace = await store.workspaces.get(workspaceId);
  if (workspace === undefined) throw errors.notFound("Workspace", workspaceId);
  if (workspace.plan !== plan) await store.workspaces.setPlan(workspaceId, plan);
  return {
    previous: workspace.plan,
    plan,
    sites: await store.sites.countByWorkspace(workspaceId),
  };
}
