/**
 * Plan and apply, as Terraform and kubectl do: compare the sites of the files with those of a
 * target, then make the target match. Every site is planned (and so checked by the service) before
 * any is written; each site is then written whole or not at all.
 */
import { isServiceError, type ServiceError } from "../../errors.ts";
import { newId } from "../../store/ids.ts";
import type { SitePlan, SiteView } from "../site-service.ts";
import type { SiteProblem } from "../yaml/site-file.ts";
import type { DesiredSite } from "./desired-sites.ts";
import type { PutResult, SiteTarget } from "./site-target.ts";

export interface PlannedSite {
  desired: DesiredSite;
  siteId: string;
  plan: SitePlan;
}

export interface SyncPlan {
  sites: PlannedSite[];
  /** Sites of the target that no file describes: deleted only with --prune. */
  orphans: SiteView[];
  /** Refusals by the service (plan limit, a plugin's config check…), at their place in the file. */
  problems: SiteProblem[];
}

export async function planSync(desired: DesiredSite[], target: SiteTarget): Promise<SyncPlan> {
  const existing = await target.list();
  const byDomain = new Map<string, SiteView[]>();
  for (const site of existing)
    byDomain.set(site.domain, [...(byDomain.get(site.domain) ?? []), site]);

  const plan: SyncPlan = { sites: [], orphans: [], problems: [] };
  const claimed = new Map<string, DesiredSite>();
  const refuse = (site: DesiredSite, field: string, message: string) =>
    plan.problems.push({ path: site.file.path, ...site.file.locate(field), field, message });

  for (const site of desired) {
    let siteId = site.siteId;
    if (siteId === undefined) {
      // Without a fixed id, a file stands for the one site with its domain, or a new one.
      const matches = byDomain.get(site.domain) ?? [];
      if (matches.length > 1) {
        refuse(
          site,
          "domain",
          `${matches.length} sites have domain ${site.domain}; add site_id to the file to say which`,
        );
        continue;
      }
      siteId = matches[0]?.site_id ?? newId("site");
    }
    const other = claimed.get(siteId);
    if (other !== undefined) {
      refuse(
        site,
        site.siteId === undefined ? "domain" : "site_id",
        `site ${siteId} is also described by ${other.file.path}`,
      );
      continue;
    }
    claimed.set(siteId, site);
    try {
      plan.sites.push({ desired: site, siteId, plan: await target.plan(siteId, site.site) });
    } catch (error) {
      if (!isServiceError(error)) throw error;
      for (const { field, message } of refusals(error)) {
        refuse(site, field === "body" ? "" : field, message);
      }
    }
  }
  plan.orphans = existing.filter((site) => !claimed.has(site.site_id));
  return plan;
}

/** Each problem a refusal lists (`details.errors`), or the refusal itself when it lists none. */
function refusals(error: ServiceError): { field: string; message: string }[] {
  const listed = Array.isArray(error.details.errors) ? (error.details.errors as unknown[]) : [];
  const entries = listed.filter(
    (entry): entry is { field: string; message: string } =>
      typeof entry === "object" &&
      entry !== null &&
      typeof (entry as { field?: unknown }).field === "string" &&
      typeof (entry as { message?: unknown }).message === "string",
  );
  if (entries.length > 0) return entries;
  const field = typeof error.details.field === "string" ? error.details.field : "";
  return [{ field, message: error.message }];
}

/** What one write did, or why it failed. */
export type AppliedSite =
  | { siteId: string; action: "create" | "update"; result: PutResult }
  | { siteId: string; action: "delete" }
  | { siteId: string; action: "create" | "update" | "delete"; error: Error };

/**
 * Writes every planned change; with `prune`, deletes the orphans. A failing site does not stop the
 * others; its error is returned in its place.
 */
export async function applySync(
  plan: SyncPlan,
  target: SiteTarget,
  options: { prune?: boolean } = {},
): Promise<AppliedSite[]> {
  const applied: AppliedSite[] = [];
  for (const { siteId, plan: sitePlan, desired } of plan.sites) {
    if (sitePlan.action === "unchanged") continue;
    const action = sitePlan.action;
    try {
      applied.push({ siteId, action, result: await target.put(siteId, desired.site) });
    } catch (error) {
      applied.push({ siteId, action, error: error as Error });
    }
  }
  if (options.prune) {
    for (const { site_id: siteId } of plan.orphans) {
      try {
        await target.delete(siteId);
        applied.push({ siteId, action: "delete" });
      } catch (error) {
        applied.push({ siteId, action: "delete", error: error as Error });
      }
    }
  }
  return applied;
}
