/**
 * The start-up load: the service applies the site files of SITEVOICE_SITES_DIR (./sites) to the
 * default workspace, so `npm start` serves the sites of the checkout. A file that does not
 * validate, or whose secrets are not set, is skipped with a warning; the service still starts.
 * A site is only ever updated over a version the start-up load wrote itself: one changed since by
 * anyone else (the API, the dashboard, `sitevoice sync`, locally or `--remote`) is not
 * overwritten, whatever its source says; that is what `sitevoice diff` and `sync` are for.
 * Nothing is ever deleted here.
 */
import { existsSync } from "node:fs";
import { relative } from "node:path";
import type { Logger } from "pino";
import type { SiteRules } from "../site-rules.ts";
import { actorOf, operatorPrincipal, type Principal } from "../../auth/principal.ts";
import type { SiteService } from "../site-service.ts";
import type { SiteProblem } from "../yaml/site-file.ts";
import { readDesiredSites, type DesiredSite } from "./desired-sites.ts";
import { localTarget } from "./site-target.ts";
import { planSync } from "./sync-sites.ts";

/** The tool the start-up load acts as: its versions' actor is `operator:startup`. */
const STARTUP_TOOL = "startup";

export interface LoadedSites {
  applied: string[];
  unchanged: string[];
  /** Sites left as the store has them, with why. */
  skipped: { siteId?: string; file: string; reason: string }[];
}

/** The site files of a folder, read and checked; nothing written yet. */
export interface SiteFolder {
  folder: string;
  /** False when the folder is not there: nothing to load, nothing to say. */
  exists: boolean;
  /** The clean files' sites. */
  sites: DesiredSite[];
  /** Each problem of the other files, which are skipped. */
  problems: SiteProblem[];
}

/** Reads the site files of `folder` as `sitevoice validate` checks them, secrets resolved. */
export async function readSiteFolder(
  folder: string,
  options: { rules: SiteRules; env?: Readonly<Record<string, string | undefined>> },
): Promise<SiteFolder> {
  if (!existsSync(folder)) return { folder, exists: false, sites: [], problems: [] };
  const read = await readDesiredSites([folder], { cwd: process.cwd(), ...options });
  return { folder, exists: true, sites: read.sites, problems: read.problems };
}

/** Applies the sites of `files` to the workspace: creates and updates, skipping with a warning. */
export async function loadSiteFolder(
  files: SiteFolder,
  parts: { sites: SiteService; workspaceId: string; logger: Logger },
): Promise<LoadedSites> {
  const loaded: LoadedSites = { applied: [], unchanged: [], skipped: [] };
  if (!files.exists) return loaded;
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

  files.problems.forEach(skip);
  const principal = operatorPrincipal(parts.workspaceId, STARTUP_TOOL);
  const target = localTarget(parts.sites, principal);
  const plan = await planSync(files.sites, target);
  plan.problems.forEach(skip);

  for (const { siteId, plan: sitePlan, desired } of plan.sites) {
    const file = relative(cwd, desired.file.path);
    const keep = (reason: string) => {
      loaded.skipped.push({ siteId, file, reason });
      logger.warn({ site_id: siteId, file }, `site file not loaded: ${reason}`);
    };
    if (sitePlan.action === "unchanged") {
      loaded.unchanged.push(siteId);
      continue;
    }
    const kept =
      sitePlan.action === "update" ? await changedSince(parts.sites, principal, siteId) : undefined;
    if (kept !== undefined) {
      keep(kept);
      continue;
    }
    try {
      // Only over the version planned: a change made meanwhile is kept too.
      await parts.sites.put(principal, siteId, desired.site, "yaml", {
        ifVersion: sitePlan.version ?? undefined,
      });
      loaded.applied.push(siteId);
    } catch (error) {
      // One site that cannot be written (a change meanwhile, a store hiccup) must not keep the
      // service from starting.
      keep((error as Error).message);
    }
  }
  logger.info(
    {
      folder: relative(cwd, files.folder) || ".",
      applied: loaded.applied.length,
      unchanged: loaded.unchanged.length,
      skipped: loaded.skipped.length,
    },
    "site files loaded",
  );
  return loaded;
}

/**
 * Why the start-up load keeps a site as the store has it: its latest version was written by
 * someone else (the API, the dashboard, `sitevoice sync`, a restore) since the start-up load
 * last applied a file to it. Undefined when the latest version is the start-up load's own: then
 * the file, or a secret it references, changed since, and nobody changed the site.
 */
async function changedSince(
  sites: SiteService,
  principal: Principal,
  siteId: string,
): Promise<string | undefined> {
  const [latest] = (await sites.versions(principal, siteId, { limit: 1 })).items;
  if (latest === undefined || latest.actor === actorOf(principal)) return undefined;
  return (
    `changed by ${latest.actor} through ${latest.source} (version ${latest.version}) since ` +
    "the start-up load last applied its file; not overwritten (see sitevoice diff)"
  );
}
