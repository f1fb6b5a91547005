/** Builds the Express app from the service's parts; no I/O happens here. */
import express, { type Express } from "express";
import type { Logger } from "pino";
import type { PluginHost } from "./host/plugin-host.ts";
import { apiKeyAuth } from "./http/api-key-auth.ts";
import { errorHandler, notFoundHandler } from "./http/error-handler.ts";
import { optionsHandler } from "./http/options-handler.ts";
import type { RateLimiterFactory } from "./http/rate-limiter.ts";
import { requestContext } from "./http/request-context.ts";
import { requestLog } from "./http/request-log.ts";
import type { ApiKeyService } from "./keys/api-key-service.ts";
import { exampleApiRoutes } from "./routes/example-api-routes.ts";
import { healthRoutes } from "./routes/health-routes.ts";
import { leadsRoutes } from "./routes/leads-routes.ts";
import { widgetRoutes } from "./routes/widget-routes.ts";
import { sitesRoutes } from "./routes/sites-routes.ts";
import type { Settings } from "./settings.ts";
import type { SiteService } from "./sites/site-service.ts";
import type { Store } from "./store/store.ts";
import type { EventBus } from "./events/event-bus.ts";
import type { SessionService } from "./widget/session-service.ts";
import type { WidgetService } from "./widget/widget-service.ts";

export interface AppParts {
  settings: Readonly<Settings>;
  logger: Logger;
  store: Store;
  plugins: PluginHost;
  keys: ApiKeyService;
  sites: SiteService;
  limiters: RateLimiterFactory;
  sessions: SessionService;
  widget: WidgetService;
  events: EventBus;
}

export function createApp(parts: AppParts): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", parts.settings.trustedProxies ?? false);
  app.use(requestContext);
  app.use(requestLog(parts.logger));
  app.use(optionsHandler);

  const requireKey = apiKeyAuth(parts.keys, parts.limiters);
  app.use(healthRoutes(parts.store, parts.plugins));
  app.use(sitesRoutes(parts.sites, requireKey));
  app.use(leadsRoutes(parts, requireKey));
  app.use(widgetRoutes(parts, requireKey));
  if (parts.settings.demo) app.use(exampleApiRoutes());

  app.use(notFoundHandler);
  app.use(errorHandler(parts.logger));
  return app;
}
