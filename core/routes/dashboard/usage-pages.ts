/**
 * The dashboard's usage page: a site's sessions, minutes and cost per bucket over a range, with
 * the totals and top functions as text and tables, charts drawn by dashboard/static/usage.js
 * (uPlot) from `GET /usage/data`, and a live tail of the site's usage events from
 * `GET /usage/stream`. The data is the summary `GET /v1/:siteId/analytics/summary` answers, read
 * the same way; the stream is the one `GET /v1/:siteId/analytics/stream` reads, with its limits.
 * The page draws its errors as HTML; the data and the stream, read by a script, answer in the
 * envelope (401 without a session, 404 for a workspace or site not the member's), never a redirect.
 */
import { parse } from "cookie";
import { Router, type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { AccountService } from "../../accounts/account-service.ts";
import type { AnalyticsService, Summary } from "../../analytics/analytics-service.ts";
import { summaryWindow, type Bucket, type Period } from "../../analytics/summary-buckets.ts";
import type { UsageStream } from "../../analytics/usage-stream.ts";
import { dashboardPrincipal } from "../../auth/principal.ts";
import { errors, isServiceError } from "../../errors.ts";
import { cookieName, type CookieSettings } from "../../http/dashboard-session.ts";
import { sendData, sendError } from "../../http/envelope.ts";
import { queryParams } from "../../http/query-params.ts";
import { consumeLimit } from "../../http/rate-limit-headers.ts";
import type { RateLimiterFactory } from "../../limits/rate-limiter.ts";
import type { SiteService } from "../../sites/site-service.ts";
import { serveUsageStream, STREAM_LIMITS } from "../analytics-stream-routes.ts";
import { siteChoices } from "./page-params.ts";
import type { Renderer } from "./render.ts";
import { usageView } from "./usage-view.ts";
import { inWorkspace, localsOf, type WorkspaceLocals } from "./workspace-context.ts";

export type UsagePagesParts = {
  analytics: AnalyticsService;
  usageStream: UsageStream;
  sites: SiteService;
  accounts: AccountService;
  limiters: RateLimiterFactory;
  logger: Logger;
  settings: CookieSettings & { stream: { heartbeatMs: number } };
};

/** The ranges offered: a summary period and the bucket it is drawn in. */
export const USAGE_RANGES = {
  "24h": { period: "day", bucket: "hour", label: "Last 24 hours" },
  "7d": { period: "week", bucket: "day", label: "Last 7 days" },
  "30d": { period: "month", bucket: "day", label: "Last 30 days" },
  "90d": { period: "quarter", bucket: "week", label: "Last 90 days" },
  "365d": { period: "year", bucket: "week", label: "Last 365 days" },
} as const satisfies Record<string, { period: Period; bucket: Bucket; label: string }>;
export type UsageRange = keyof typeof USAGE_RANGES;
const DEFAULT_RANGE: UsageRange = "7d";

/** Summaries a member may read a minute, page and data together (a year's costs the most). */
const USAGE_READS = { name: "dashboard-usage", points: 300, durationSeconds: 60 };
/** What a browser's EventSource is told to wait before reconnecting, as the API's stream. */
const PARAMS = ["workspace_id", "site_id", "range"] as const;

export function usagePages(parts: UsagePagesParts, render: Renderer): Router {
  const router = Router();
  const reads = parts.limiters(USAGE_READS);
  const summaryOf = async (res: Response, siteId: string, range: UsageRange) => {
    const { principal } = localsOf(res);
    await consumeLimit(reads, principal.keyId, res);
    const { period, bucket } = USAGE_RANGES[range];
    const window = summaryWindow(period, Date.now());
    return parts.analytics.summary(principal, siteId, { window, bucket });
  };

  router.get("/usage", inWorkspace, async (req, res) => {
    const query = queryParams(req, PARAMS, errors.invalidParams);
    const { principal } = localsOf(res);
    const range = rangeOf(query.range);
    const sites = (await siteChoices(parts.sites, principal)).choices;
    const siteId = query.site_id ?? sites[0]?.site_id;
    let summary: Summary | undefined;
    if (siteId !== undefined) {
      summary = await summaryOf(res, siteId, range);
      if (!sites.some((site) => site.site_id === siteId)) {
        const site = await parts.sites.get(principal, siteId);
        sites.push({ site_id: site.site_id, business_name: site.business_name });
      }
    }
    const site = sites.find((listed) => listed.site_id === siteId);
    render.page(res, "usage", site ? `Usage of ${site.business_name}` : "Usage", {
      sites,
      site,
      range,
      ranges: Object.entries(USAGE_RANGES).map(([value, { label, bucket }]) => ({
        value,
        label: `${label}, by ${bucket}`,
        selected: value === range,
      })),
      ...(summary === undefined ? {} : usageView(summary, USAGE_RANGES[range])),
      styles: summary === undefined ? ["usage.css"] : ["uplot.css", "usage.css"],
      scripts: summary === undefined ? [] : ["uplot.js", "usage.js"],
    });
  });

  router.get(
    "/usage/data",
    enveloped(async (req, res) => {
      memberOf(req, res);
      const query = queryParams(req, PARAMS, errors.invalidParams);
      const range = rangeOf(query.range);
      const summary = await summaryOf(res, siteOf(query.site_id), range);
      res.set("Cache-Control", "no-store");
      sendData(req, res, summary, { meta: { range, bucket: USAGE_RANGES[range].bucket } });
    }),
  );

  router.get(
    "/usage/stream",
    enveloped(async (req, res) => {
      const { workspace, principal } = memberOf(req, res);
      const siteId = siteOf(
        queryParams(req, ["workspace_id", "site_id"], errors.invalidParams).site_id,
      );
      await serveUsageStream(
        req,
        res,
        parts,
        { ...STREAM_LIMITS, heartbeatMs: parts.settings.stream.heartbeatMs },
        {
          principal,
          siteId,
          stillAllowed: () => stillAllowed(req, workspace.id, siteId),
          endedWhy: "dashboard stream ended: its session may no longer read the site",
        },
      );
    }),
  );

  /** The session behind the cookie still stands, in the workspace, which still has the site. */
  async function stillAllowed(req: Request, workspaceId: string, siteId: string): Promise<void> {
    const token = parse(req.headers.cookie ?? "")[cookieName(parts.settings)];
    const account = await parts.accounts.session(token);
    if (account?.workspaces.some((w) => w.id === workspaceId) !== true) {
      throw errors.unauthorized("The dashboard session has ended");
    }
    await parts.analytics.checkAccess(dashboardPrincipal(workspaceId, account.user.id), siteId);
  }

  return router;
}

/** `range`: one of USAGE_RANGES; the default when absent. */
function rangeOf(raw: string | undefined): UsageRange {
  if (raw === undefined) return DEFAULT_RANGE;
  if (!Object.hasOwn(USAGE_RANGES, raw)) {
    const names = Object.keys(USAGE_RANGES).join(", ");
    throw errors.invalidParams(`range must be one of ${names}, got "${raw}"`, { field: "range" });
  }
  return raw as UsageRange;
}

function siteOf(raw: string | undefined): string {
  if (raw === undefined) throw errors.invalidParams("site_id is required", { field: "site_id" });
  return raw;
}

/**
 * What `inWorkspace` sets, for a route a script reads: no session is 401 and a workspace not the
 * member's 404, thrown, not a redirect to follow.
 */
function memberOf(req: Request, res: Response): WorkspaceLocals {
  const account = req.account;
  if (account === undefined) throw errors.unauthorized("Sign in to the dashboard first");
  const workspace = account.workspaces.find((w) => w.id === req.query.workspace_id);
  if (workspace === undefined) {
    throw errors.notFound("Workspace", String(req.query.workspace_id ?? ""));
  }
  res.locals.workspace = workspace;
  res.locals.principal = dashboardPrincipal(workspace.id, account.user.id);
  return localsOf(res);
}

/** A route answering its service errors in the envelope (the dashboard draws them as HTML). */
function enveloped(handler: (req: Request, res: Response) => Promise<void>) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      await handler(req, res);
    } catch (error) {
      if (isServiceError(error) && !res.headersSent) sendError(req, res, error);
      else next(error);
    }
  };
}
