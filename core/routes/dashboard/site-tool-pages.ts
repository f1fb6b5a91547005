/**
 * A site's tools in the dashboard, each an htmx action answered with a fragment: its adapter
 * (saved as YAML, and "Test connection", which runs `sitevoice adapters test`), its crawls (the
 * latest, polled while one runs, and Refresh under the API's own limit), its versions (the
 * changes each made, and restore) and the whole site as YAML, checked with exactly the lines
 * `sitevoice validate` prints and saved as `sitevoice sync` would.
 */
import { Router, type Request, type Response } from "express";
import { parse as parseYaml } from "yaml";
import { errors, isServiceError } from "../../errors.ts";
import type { PluginHost } from "../../host/plugin-host.ts";
import type { CrawlService } from "../../intelligence/crawl-service.ts";
import { consumeLimit } from "../../http/rate-limit-headers.ts";
import type { RateLimiterFactory } from "../../limits/rate-limiter.ts";
import { adaptersTestCommand } from "../../search/adapters-command.ts";
import { diffSites } from "../../sites/site-diff.ts";
import type { SiteRules } from "../../sites/site-rules.ts";
import type { SiteService, SiteView } from "../../sites/site-service.ts";
import { formatChange } from "../../sites/sync/sync-command.ts";
import { MAX_SITE_FILE_BYTES } from "../../sites/yaml/site-file.ts";
import { checkSiteText } from "../../sites/yaml/validate-sites.ts";
import { tooDeepYamlAt } from "../../sites/yaml/yaml-depth.ts";
import { MAX_NESTING_DEPTH, nestsDeeperThan } from "../../validation/nesting-depth.ts";
import { REFRESH_LIMIT } from "../crawls-routes.ts";
import type { Renderer } from "./render.ts";
import { inWorkspace, localsOf, toPage } from "./workspace-context.ts";

export interface SiteToolParts {
  sites: SiteService;
  rules: SiteRules;
  plugins: PluginHost;
  crawls: CrawlService;
  limiters: RateLimiterFactory;
}

/** Crawls the site page shows. */
const CRAWLS_SHOWN = 5;
/** A crawl's errors the site page lists (the API's crawl list has them all). */
const CRAWL_ERRORS_SHOWN = 10;
/** Versions the versions page shows at once. */
const VERSIONS_PER_PAGE = 50;
/** The longest YAML the editors take: a site file's own limit. */
const MAX_YAML_CHARS = MAX_SITE_FILE_BYTES;

/** A site's config without the fields the service sets, as a site file holds it. */
export function siteFile(site: SiteView): Record<string, unknown> {
  const { version: _v, created_at: _c, updated_at: _u, ...config } = site;
  return config;
}

function textField(req: Request, name: string): string {
  const value = (req.body as Record<string, unknown>)[name];
  if (typeof value !== "string") return "";
  if (value.length > MAX_YAML_CHARS) {
    throw errors.invalidRequest(`${name} must be at most ${MAX_YAML_CHARS} characters`, {
      field: name,
    });
  }
  return value;
}

/**
 * 409 when the site changed since the form's page was drawn (its hidden `version`): saving would
 * silently undo the other change.
 */
export function assertUnchanged(req: Request, current: SiteView): void {
  const drawn = (req.body as Record<string, unknown>).version;
  if (drawn !== undefined && drawn !== String(current.version)) {
    throw errors.conflict(
      `The site changed since this page was opened (it is at version ${current.version} now): reload the page, then make your change again`,
      { version: current.version },
    );
  }
}

/** After a save: the site's page again, drawn anew at the new version, saying so. */
export function savedPage(
  render: Renderer,
  res: Response,
  before: SiteView,
  after: SiteView,
): void {
  const { workspace } = localsOf(res);
  if (after.version === before.version) {
    render.fragment(res, "saved", { message: "Nothing changed." });
    return;
  }
  toPage(
    res,
    `/dashboard/sites/${after.site_id}?workspace_id=${workspace.id}&saved=${after.version}`,
  );
}

/**
 * The adapter the editor holds, null when it is empty. It sits one level inside the site, so it
 * may nest one level less than a site file: a deeper text is refused before it is composed (which
 * recurses), as a site file is.
 */
function adapterFromYaml(text: string): unknown {
  if (text.trim() === "") return null;
  const levels = MAX_NESTING_DEPTH - 1;
  const tooDeep = (where: object) =>
    errors.invalidRequest(
      `adapter nests lists and mappings more than ${levels} levels deep (the site around it is ` +
        `one more level, and ${MAX_NESTING_DEPTH} in all is the most)`,
      { field: "adapter", ...where },
    );
  const deep = tooDeepYamlAt(text, levels);
  if (deep !== undefined) throw tooDeep(deep);
  let adapter: unknown;
  try {
    adapter = parseYaml(text, { maxAliasCount: 100 });
  } catch (error) {
    throw errors.invalidRequest(`adapter is not valid YAML: ${(error as Error).message}`, {
      field: "adapter",
    });
  }
  // Aliases inside aliases may nest the value deeper than its text.
  if (nestsDeeperThan(adapter, levels)) throw tooDeep({});
  return adapter;
}

export function siteToolPages(parts: SiteToolParts, render: Renderer): Router {
  const router = Router();
  const { sites, crawls } = parts;
  const refreshes = parts.limiters(REFRESH_LIMIT);
  const siteIdOf = (req: Request) => req.params.id as string;

  router.post("/sites/:id/adapter", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const adapter = adapterFromYaml(textField(req, "adapter"));
    const before = await sites.get(principal, siteIdOf(req));
    assertUnchanged(req, before);
    savedPage(
      render,
      res,
      before,
      await sites.patch(principal, siteIdOf(req), { adapter }, "dashboard"),
    );
  });

  router.post("/sites/:id/adapter/test", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const lines: string[] = [];
    let ok = false;
    try {
      const code = await adaptersTestCommand(siteIdOf(req), {
        sites,
        plugins: parts.plugins,
        principal,
        out: (line) => lines.push(line),
      });
      ok = code === 0;
    } catch (error) {
      // No adapter, no plugin of its type, a config its plugin refuses: said as the CLI says it.
      if (!isServiceError(error)) throw error;
      lines.push(`connection: FAILED: ${(error as Error).message}`);
    }
    render.fragment(res, "adapter-test", { ok, output: lines.join("\n") });
  });

  router.get("/sites/:id/crawls", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const page = await crawls.list(principal, siteIdOf(req), { limit: CRAWLS_SHOWN });
    render.fragment(res, "crawl-status", crawlContext(siteIdOf(req), page.items));
  });

  router.post("/sites/:id/crawl", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const siteId = siteIdOf(req);
    await crawls.refresh(principal, siteId, () => consumeLimit(refreshes, siteId, res));
    const page = await crawls.list(principal, siteId, { limit: CRAWLS_SHOWN });
    render.fragment(res, "crawl-status", crawlContext(siteId, page.items));
  });

  router.get("/sites/:id/versions", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const site = await sites.get(principal, siteIdOf(req));
    const before = /^\d{1,9}$/.test(String(req.query.before))
      ? Number(req.query.before)
      : undefined;
    const page = await sites.versions(principal, site.site_id, {
      limit: VERSIONS_PER_PAGE,
      before,
    });
    render.page(res, "site-versions", `Versions of ${site.business_name}`, {
      site,
      versions: page.items.map((v) => ({ ...v, current: v.version === site.version })),
      next: page.next,
    });
  });

  router.get("/sites/:id/versions/:n/changes", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const n = versionNumber(req.params.n as string);
    const after = await sites.version(principal, siteIdOf(req), n);
    const before = n > 1 ? (await sites.version(principal, siteIdOf(req), n - 1)).site : {};
    const changes = diffSites(before, after.site).map(formatChange);
    render.fragment(res, "version-changes", { changes, first: n === 1 });
  });

  router.post("/sites/:id/versions/:n/restore", inWorkspace, async (req, res) => {
    const { principal, workspace } = localsOf(res);
    const n = versionNumber(req.params.n as string);
    await sites.restore(principal, siteIdOf(req), n);
    toPage(res, `/dashboard/sites/${siteIdOf(req)}/versions?workspace_id=${workspace.id}`);
  });

  router.post("/sites/:id/yaml", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const siteId = siteIdOf(req);
    const current = await sites.get(principal, siteId);
    const checked = checkSiteText(textField(req, "yaml"), `${siteId}.yaml`, parts.rules);
    const problems = [...checked.lines];
    if (
      checked.data !== undefined &&
      checked.data.site_id !== undefined &&
      checked.data.site_id !== siteId
    ) {
      problems.push(`${siteId}.yaml:1:1  site_id  must stay "${siteId}": this is that site's file`);
    }
    if (problems.length > 0 || req.body.action !== "save") {
      render.fragment(res, "yaml-check", { problems }, problems.length > 0 ? 422 : 200);
      return;
    }
    assertUnchanged(req, current);
    const { site } = await sites.put(principal, siteId, checked.data, "dashboard");
    savedPage(render, res, current, site);
  });

  return router;
}

function versionNumber(text: string): number {
  if (!/^[1-9]\d{0,8}$/.test(text)) throw errors.invalidRequest("The version must be a number");
  return Number(text);
}

function crawlContext(siteId: string, items: Awaited<ReturnType<CrawlService["list"]>>["items"]) {
  const [latest] = items;
  return {
    siteId,
    crawls: items.map((crawl) => ({
      ...crawl,
      shownErrors: crawl.errors.slice(0, CRAWL_ERRORS_SHOWN),
      moreErrors: Math.max(0, crawl.errors.length - CRAWL_ERRORS_SHOWN),
    })),
    running: latest !== undefined && (latest.status === "queued" || latest.status === "running"),
  };
}
