/**
 * Whether the default workspace's plan holds every site a folder of site files would create: a
 * start on the embedded default checks it before it creates or writes anything, so the quick
 * start never serves without one of its example sites (http/service.ts).
 */
import { relative } from "node:path";
import { operatorPrincipal } from "../../auth/principal.ts";
import { defaultWorkspacePlan } from "../../bootstrap.ts";
import { PLANS } from "../../plans.ts";
import type { Settings } from "../../settings.ts";
import type { Store } from "../../store/store.ts";
import { SITES_PER_PLAN, siteLimitText } from "../plan-limits.ts";
import type { SiteService } from "../site-service.ts";
import type { SiteFolder } from "./load-sites.ts";
import { localTarget } from "./site-target.ts";

/** Throws one line naming the plan and how to change it when the files need more sites. */
export async function assertPlanHoldsSiteFolder(
  files: SiteFolder,
  parts: { store: Store; sites: SiteService },
  settings: Pick<Settings, "defaultPlan">,
): Promise<void> {
  const workspace = await parts.store.workspaces.first();
  const plan = defaultWorkspacePlan(workspace, settings);
  const limit = SITES_PER_PLAN[plan];
  if (limit === undefined || files.sites.length === 0) return;
  const existing =
    workspace === undefined
      ? []
      : await localTarget(parts.sites, operatorPrincipal(workspace.id, "startup")).list();
  const ids = new Set(existing.map((site) => site.site_id));
  const domains = new Set(existing.map((site) => site.domain));
  // Matched as the load matches them: by site_id, else by domain.
  const creates = files.sites.filter((site) =>
    site.siteId === undefined ? !domains.has(site.domain) : !ids.has(site.siteId),
  ).length;
  const needed = existing.length + creates;
  if (creates === 0 || needed <= limit) return;
  const enough = PLANS.find((candidate) => (SITES_PER_PLAN[candidate] ?? Infinity) >= needed);
  const change =
    settings.defaultPlan !== undefined || workspace === undefined
      ? `set SITEVOICE_DEFAULT_PLAN to ${enough} or a larger plan`
      : `run \`sitevoice workspace plan ${workspace.id} ${enough}\` (or set SITEVOICE_DEFAULT_PLAN)`;
  throw new Error(
    `the default workspace's plan ${plan} allows ${siteLimitText(plan)}, and the site files of ` +
      `${relative(process.cwd(), files.folder) || "."} need ${needed}: ${change}, or load fewer ` +
      "site files (SITEVOICE_SITES_DIR)",
  );
}
