/**
 * `/v1/webhooks`: the workspace's webhook endpoints (list, create, read, patch, delete, rotate
 * the secret), every route with the API-key scope webhooks:write. Sending deliveries, the test
 * event and the delivery log are routes of their own, elsewhere.
 */
import { Router } from "express";
import { principalOf, type apiKeyAuth } from "../http/api-key-auth.ts";
import { BODY_LIMIT_API, jsonBody, noYamlBody } from "../http/body-parsers.ts";
import { sendData } from "../http/envelope.ts";
import { decodeCursor, encodeCursor, parseLimit } from "../http/pagination.ts";
import { queryParams } from "../http/query-params.ts";
import { isNewestKey } from "../store/newest-first.ts";
import { type WebhookEndpointService } from "../webhooks/endpoint-service.ts";

/** Where the webhooks API is mounted: its routes are below it. */
export const WEBHOOKS_PATH = "/v1/webhooks";

export function webhooksRoutes(
  webhooks: WebhookEndpointService,
  requireKey: ReturnType<typeof apiKeyAuth>,
): Router {
  const router = Router();
  // Per route rather than router.use: other routers mounted on the same path keep their own.
  const json = jsonBody(BODY_LIMIT_API);
  const mayWrite = requireKey("webhooks:write");

  router.get("/", mayWrite, async (req, res) => {
    const query = queryParams(req, ["limit", "cursor"]);
    const page = await webhooks.list(principalOf(req), {
      limit: parseLimit(query.limit),
      before: decodeCursor(query.cursor, isNewestKey),
    });
    sendData(req, res, page.items, {
      meta: { next_cursor: page.next === undefined ? null : encodeCursor(page.next) },
    });
  });

  router.post("/", json, noYamlBody, mayWrite, async (req, res) => {
    queryParams(req, []);
    sendData(req, res, await webhooks.create(principalOf(req), req.body), { status: 201 });
  });

  router.get("/:id", mayWrite, async (req, res) => {
    queryParams(req, []);
    sendData(req, res, await webhooks.get(principalOf(req), req.params.id as string));
  });

  router.patch("/:id", json, noYamlBody, mayWrite, async (req, res) => {
    queryParams(req, []);
    const id = req.params.id as string;
    sendData(req, res, await webhooks.patch(principalOf(req), id, req.body));
  });

  router.delete("/:id", mayWrite, async (req, res) => {
    queryParams(req, []);
    const id = req.params.id as string;
    await webhooks.delete(principalOf(req), id);
    sendData(req, res, { id, deleted: true });
  });

  router.post("/:id/rotate-secret", mayWrite, async (req, res) => {
    queryParams(req, []);
    sendData(req, res, await webhooks.rotateSecret(principalOf(req), req.params.id as string));
  });

  return router;
}
