/**
 * `POST /v1/:siteId/query`: a search of one collection of a site. For now with an API key holding
 * `query:test` (DECISIONS.md: the debug path); the widget's signed sessions arrive with the widget
 * API and share everything after authentication.
 */
import { Router } from "express";
import type { Logger } from "pino";
import type { apiKeyAuth } from "../http/api-key-auth.ts";
import { BODY_LIMIT_WIDGET, jsonBody } from "../http/body-parsers.ts";
import { sendData } from "../http/envelope.ts";
import { errors, isServiceError } from "../http/errors.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import { searchSite } from "../search/site-search.ts";
import type { SiteService } from "../sites/site-service.ts";

export function queryRoutes(
  parts: { sites: SiteService; plugins: PluginHost; logger: Logger },
  requireKey: ReturnType<typeof apiKeyAuth>,
): Router {
  const router = Router();
  router.post(
    "/v1/:siteId/query",
    requireKey("query:test"),
    jsonBody(BODY_LIMIT_WIDGET),
    async (req, res) => {
      const siteId = req.params.siteId as string;
      if (req.principal === undefined) throw errors.unauthorized();
      const site = await parts.sites.openConfig(req.principal, siteId).catch((error: unknown) => {
        throw isServiceError(error) && error.code === "not_found"
          ? errors.siteNotFound(siteId)
          : error;
      });
      // A client that goes away stops the backend call too.
      const gone = new AbortController();
      res.on("close", () => {
        if (!res.writableFinished) gone.abort(new Error("client closed the request"));
      });
      const result = await searchSite(parts.plugins, site, req.body, {
        signal: gone.signal,
        logger: parts.logger.child({ request_id: req.id, site_id: siteId }),
      });
      sendData(req, res, result);
    },
  );
  return router;
}
