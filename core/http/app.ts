/** Builds the Express app from the service's parts; no I/O happens here. */
import { Lifecycle } from "../lifecycle.ts";
import express, { type Express } from "express";
import type { ServiceParts } from "../compose.ts";
import { apiKeyAuth } from "./api-key-auth.ts";
import { errorHandler, notFoundHandler } from "./error-handler.ts";
import { optionsHandler } from "./options-handler.ts";
import { requestContext } from "./request-context.ts";
import { requestLog } from "./request-log.ts";
import { analyticsRoutes } from "../routes/analytics-routes.ts";
import { analyticsStreamRoutes, STREAM_LIMITS } from "../routes/analytics-stream-routes.ts";
import { crawlerPageRoutes } from "../routes/crawler-page-routes.ts";
import { crawlsRoutes } from "../routes/crawls-routes.ts";
import { exampleApiRoutes } from "../routes/example-api-routes.ts";
import { exampleSiteRoutes } from "../routes/example-site-routes.ts";
import { knowledgeRoutes } from "../routes/knowledge-routes.ts";
import { leadsRoutes } from "../routes/leads-routes.ts";
import { SITES_PATH, sitesRoutes } from "../routes/sites-routes.ts";
import { webhookDeliveriesRoutes } from "../routes/webhook-deliveries-routes.ts";
import { WEBHOOKS_PATH, webhooksRoutes } from "../routes/webhooks-routes.ts";
import { userDataRoutes } from "../routes/user-data-routes.ts";
import { authRoutes } from "../routes/auth-routes.ts";
import { apiKeysRoutes } from "../routes/api-keys-routes.ts";
import { workspaceRoutes } from "../routes/workspace-routes.ts";
import { oauthRoutes } from "../routes/oauth-routes.ts";
import { dashboardRoutes } from "../routes/dashboard-routes.ts";
import { widgetRoutes } from "../routes/widget-routes.ts";
import { widgetScriptRoutes } from "../routes/widget-script-routes.ts";
import { apiRoutes } from "../routes/api-routes.ts";
import { mountRoutes } from "../routes/table/mount.ts";

/** What the app is made of: the service's parts (everything but `close`). */
export type AppParts = Omit<ServiceParts, "close">;

/**
 * The app of `parts`; `lifecycle` is the running instance's (draining, jobs), which the
 * readiness check reads: a new one (ready, no jobs) for an app made without a service around it.
 */
export function createApp(parts: AppParts, lifecycle = new Lifecycle()): Express {
  const app = express();
  app.disable("x-powered-by");
  // API answers change with every request (meta.request_id, meta.ts): an ETag could never match,
  // and hashing each body for one costs time on every answer.
  app.set("etag", false);
  app.set("trust proxy", parts.settings.trustedProxies ?? false);
  app.use(requestContext);
  app.use(requestLog(parts.logger));
  app.use(optionsHandler);

  const requireKey = apiKeyAuth(parts.keys, parts.limiters);
  // The route table (routes/table/): the routes moved into it so far.
  app.use(mountRoutes(apiRoutes({ ...parts, lifecycle }), parts));
  app.use(crawlerPageRoutes());
  // Before the widget script's routes: an example website replaces the plain demo page.
  if (parts.settings.demo) app.use(exampleSiteRoutes());
  app.use(widgetScriptRoutes({ sites: parts.sites, demo: parts.settings.demo }));
  app.use(SITES_PATH, sitesRoutes(parts.sites, requireKey));
  app.use(SITES_PATH, crawlsRoutes(parts.crawls, parts.limiters, requireKey));
  app.use(SITES_PATH, knowledgeRoutes(parts, requireKey));
  app.use(leadsRoutes(parts, requireKey));
  app.use(webhookDeliveriesRoutes(parts, requireKey));
  app.use(WEBHOOKS_PATH, webhooksRoutes(parts.webhooks, requireKey));
  app.use(analyticsRoutes(parts.analytics, requireKey));
  app.use(userDataRoutes(parts, requireKey));
  app.use(authRoutes(parts));
  app.use(apiKeysRoutes(parts));
  app.use(workspaceRoutes(parts));
  app.use(oauthRoutes(parts, requireKey));
  app.use(dashboardRoutes(parts));
  app.use(
    analyticsStreamRoutes(parts, requireKey, {
      ...STREAM_LIMITS,
      heartbeatMs: parts.settings.stream.heartbeatMs,
    }),
  );
  app.use(widgetRoutes(parts, requireKey));
  if (parts.settings.demo) app.use(exampleApiRoutes());

  app.use(notFoundHandler);
  app.use(errorHandler(parts.logger));
  return app;
}
