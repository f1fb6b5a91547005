/**
 * `sitevoice workspace list | plan`: the workspaces of the local store and their plans (the
 * change itself is core/accounts/workspace-plan.ts).
 */
import { changePlan } from "../accounts/workspace-plan.ts";
import { SITES_PER_PLAN, siteLimitText } from "../sites/plan-limits.ts";
import type { Settings } from "../settings.ts";
import { withStore } from "./command-parts.ts";

export async function workspaceList(settings: Readonly<Settings>) {
  await withStore(settings, async ({ store }) => {
    const rows = await store.workspaces.list();
    if (rows.length === 0)
      console.log("no workspace yet: `sitevoice serve` creates the default one");
    for (const row of rows) {
      const sites = await store.sites.countByWorkspace(row.id);
      console.log(`${row.id}  ${row.plan}  ${sites} site${sites === 1 ? "" : "s"}  ${row.name}`);
    }
  });
}

export async function workspacePlan(
  settings: Readonly<Settings>,
  input: { positionals: string[] },
) {
  const [workspaceId, plan] = input.positionals as [string, string];
  await withStore(settings, async ({ store }) => {
    const change = await changePlan(store, workspaceId, plan);
    const limit = SITES_PER_PLAN[change.plan];
    console.log(
      change.previous === change.plan
        ? `${workspaceId}: already on the ${change.plan} plan`
        : `${workspaceId}: plan ${change.plan} (was ${change.previous}), ${siteLimitText(change.plan)}`,
    );
    if (limit !== undefined && change.sites > limit) {
      console.log(
        `It has ${change.sites} sites, more than the plan allows: they stay, new sites are refused.`,
      );
    }
  });
}
