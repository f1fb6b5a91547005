/** `/v1/sites`: list, create, read, patch and delete, with API-key scopes sites:read / sites:write. */
import { Router, type Request } from "express";
import type { apiKeyAuth } from "../http/api-key-auth.ts";
import { BODY_LIMIT_API, jsonBody } from "../http/body-parsers.ts";
import { sendData } from "../http/envelope.ts";
import { errors } from "../http/errors.ts";
import { decodeCursor, encodeCursor, parseLimit } from "../http/pagination.ts";
import type { Principal } from "../http/principal.ts";
import { isSiteCursor, type SiteService } from "../sites/site-service.ts";

const principalOf = (req: Request): Principal => {
  if (req.principal === undefined) throw errors.unauthorized();
  return req.principal;
};

const queryString = (req: Request, name: string): string | undefined => {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string")
    throw errors.invalidRequest(`${name} must be given once, as text`, { field: name });
  return value;
};

export function sitesRoutes(sites: SiteService, requireKey: ReturnType<typeof apiKeyAuth>): Router {
  const router = Router();
  router.use("/v1/sites", jsonBody(BODY_LIMIT_API));

  router.get("/v1/sites", requireKey("sites:read"), async (req, res) => {
    const limit = parseLimit(queryString(req, "limit"));
    const after = decodeCursor(queryString(req, "cursor"), isSiteCursor);
    const q = queryString(req, "q");
    if (q !== undefined && q.length > 200)
      throw errors.invalidRequest("q must be at most 200 characters", { field: "q" });
    const page = await sites.list(principalOf(req), { limit, after, q });
    sendData(req, res, page.items, {
      meta: { next_cursor: page.next === undefined ? null : encodeCursor(page.next) },
    });
  });

  router.post("/v1/sites", requireKey("sites:write"), async (req, res) => {
    const site = await sites.create(principalOf(req), req.body);
    sendData(req, res, site, { status: 201, meta: { version: site.version } });
  });

  router.get("/v1/sites/:id", requireKey("sites:read"), async (req, res) => {
    const site = await sites.get(principalOf(req), req.params.id as string);
    sendData(req, res, site, { meta: { version: site.version } });
  });

  router.patch("/v1/sites/:id", requireKey("sites:write"), async (req, res) => {
    const site = await sites.patch(principalOf(req), req.params.id as string, req.body);
    sendData(req, res, site, { meta: { version: site.version } });
  });

  router.delete("/v1/sites/:id", requireKey("sites:write"), async (req, res) => {
    const siteId = req.params.id as string;
    await sites.delete(principalOf(req), siteId);
    sendData(req, res, { site_id: siteId, deleted: true });
  });

  return router;
}
