/**
 * Deliveries of a webhook endpoint (webhooks:write): `POST /v1/webhooks/:id/test` (202, a
 * synthetic `webhook.test` delivery), `GET /v1/webhooks/:id/deliveries` (the log, newest first,
 * each delivery with its attempts) and `POST /v1/webhooks/:id/deliveries/:delivery_id/redeliver`
 * (202, the same event again as a new delivery).
 */
import { Router, type RequestHandler } from "express";
import { errors } from "../errors.ts";
import { isNewestKey } from "../store/newest-first.ts";
import { principalOf, type apiKeyAuth } from "../http/api-key-auth.ts";
import { BODY_LIMIT_API, jsonBody, noYamlBody } from "../http/body-parsers.ts";
import { sendData } from "../http/envelope.ts";
import { decodeCursor, encodeCursor, parseLimit } from "../http/pagination.ts";
import { queryParams } from "../http/query-params.ts";
import type { DeliveryStatus } from "../store/repos/webhook-deliveries-repo.ts";
import type { WebhookDeliveryService } from "../webhooks/delivery-service.ts";

const STATUSES: readonly DeliveryStatus[] = ["pending", "delivered", "abandoned"];

export function webhookDeliveriesRoutes(
  parts: { webhookDeliveries: WebhookDeliveryService },
  requireKey: ReturnType<typeof apiKeyAuth>,
): Router {
  const router = Router();
  const service = parts.webhookDeliveries;
  const mayWrite = requireKey("webhooks:write");
  // The two actions take no body (an empty JSON object is accepted) and no query parameters.
  const action = [jsonBody(BODY_LIMIT_API), noYamlBody, mayWrite, bodiless];

  router.post("/v1/webhooks/:id/test", ...action, async (req, res) => {
    const sent = await service.test(principalOf(req), req.params.id as string);
    sendData(req, res, sent, { status: 202 });
  });

  router.get("/v1/webhooks/:id/deliveries", mayWrite, async (req, res) => {
    const query = queryParams(req, ["status", "cursor", "limit"]);
    const status = query.status;
    if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
      throw errors.invalidRequest(`status must be one of ${STATUSES.join(", ")}`, {
        field: "status",
      });
    }
    const page = await service.list(principalOf(req), req.params.id as string, {
      limit: parseLimit(query.limit),
      before: decodeCursor(query.cursor, isNewestKey),
      status: status as DeliveryStatus | undefined,
    });
    sendData(req, res, page.items, {
      meta: { next_cursor: page.next === undefined ? null : encodeCursor(page.next) },
    });
  });

  router.post("/v1/webhooks/:id/deliveries/:delivery_id/redeliver", ...action, async (req, res) => {
    const id = req.params.id as string;
    const deliveryId = req.params.delivery_id as string;
    sendData(req, res, await service.redeliver(principalOf(req), id, deliveryId), {
      status: 202,
    });
  });

  return router;
}

/** Refuses query parameters and a body (none, or an empty object, is what these take). */
const bodiless: RequestHandler = (req, _res, next) => {
  queryParams(req, []);
  const body: unknown = req.body;
  const empty =
    body === undefined ||
    body === null ||
    (typeof body === "object" && !Array.isArray(body) && Object.keys(body).length === 0);
  next(empty ? undefined : errors.invalidRequest("This action takes no body", { field: "body" }));
};
