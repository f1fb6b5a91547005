/**
 * The start-up load: the service applies the site files of SITEVOICE_SITES_DIR (./sites) to the
 * default workspace, so `npm start` serves the sites of the checkout. A file that does not
 * validate, or whose secrets are not set, is skipped with a warning; the service still starts.
 * A site changed through the API or the dashboard since its file was last applied is not
 * overwritten: that is what `sitevoice diff` and `sync` are for. Nothing is ever deleted here.
 */
import { existsSync } from "node:fs";
import { relative } from "node:path";
import type { Logger } from "pino";
import type { SiteRules } from "../site-rules.ts";
import { operatorPrincipal } from "../../auth/principal.ts";
import type { SiteService } from "../site-service.ts";
import type { SiteProblem } from "../yaml/site-file.ts";
import { readDesiredSites } from "./desired-sites.ts";
import { localTarget } from "./site-target.ts";
import { planSync } from "./sync-sites.ts";

export interface LoadedSites {
  applied: string[];
  unchanged: string[];
  /** Sites left as the store has them, with why. */
  skipped: { siteId?: string; file: string; reason: string }[];
}

export async function loadSiteFolder(
  folder: string,
  parts: {
    sites: SiteService;
    workspaceId: string;
    rules: SiteRules;
    logger: Logger;
    env?: Readonly<Record<string, string | undefined>>;
  },
): Promise<LoadedSites> {
  const loaded: LoadedSites = { applied: [], unchanged: [], skipped: [] };
  if (!existsSync(folder)) return loaded;
  const { logger } = parts;
  const cwd = process.cwd();
  const skip = (problem: SiteProblem) => {
    const file = relative(cwd, problem.path);
    loaded.skipped.push({ file, reason: problem.message });
    logger.warn(
      { file, line: problem.line, column: problem.column, field: problem.field },
      `site file not loaded: ${problem.message}`,
    );
  };

  const read = await readDesiredSites([folder], { cwd, rules: parts.rules, env: parts.env });
  read.problems.forEach(skip);
  const target = localTarget(parts.sites, operatorPrincipal(parts.workspaceId, "startup"));
  const plan = await planSync(read.sites, target);
  plan.problems.forEach(skip);

  for (const { siteId, plan: sitePlan, desired } of plan.sites) {
    const file = relative(cwd, desired.file.path);
    if (sitePlan.action === "unchanged") {
      loaded.unchanged.push(siteId);
    } else if (sitePlan.action === "update" && sitePlan.source !== "yaml") {
      const reason = `changed through ${sitePlan.source ?? "?"} since the file was last applied; not overwritten (see sitevoice diff)`;
      loaded.skipped.push({ siteId, file, reason });
      logger.warn({ site_id: siteId, file }, `site file not loaded: ${reason}`);
    } else {
      try {
        await target.put(siteId, desired.site);
        loaded.applied.push(siteId);
      } catch (error) {
        // One site that cannot be written (another instance racing with an edit, a store
        // hiccup) must not keep the service from starting.
        const reason = (error as Error).message;
        loaded.skipped.push({ siteId, file, reason });
        logger.warn({ site_id: siteId, file }, `site file not loaded: ${reason}`);
      }
    }
  }
  logger.info(
    {
      folder: relative(cwd, folder) || ".",
      applied: loaded.applied.length,
      unchanged: loaded.unchanged.length,
      skipped: loaded.skipped.length,
    },
    "site files loaded",
  );
  return loaded;
}
