/**
 * The dashboard's webhooks page: the workspace's endpoints (where, which events, enabled or why
 * not), a form for a new one whose answer shows its signing secret once, and per endpoint the
 * test event, the delivery log (with redelivery), re-enable or disable, a new secret and delete.
 * Every action goes through the same services as `/v1/webhooks` with the dashboard's principal,
 * so the API's rules (the URL and outbound policy, event types, the limit of endpoints) answer
 * here with the API's messages, drawn as the `error` fragment. An action answers a message for
 * the place it was asked from, and swaps in (out of band) what it changed: the list, a row, a log.
 */
import { Router, type Request } from "express";
import { decodeCursor, encodeCursor } from "../../http/pagination.ts";
import { isNewestKey } from "../../store/newest-first.ts";
import type { SiteService } from "../../sites/site-service.ts";
import type { DeliveryCursor } from "../../store/repos/webhook-deliveries-repo.ts";
import type { DeliveryView, WebhookDeliveryService } from "../../webhooks/delivery-service.ts";
import {
  DISABLED_BY_API,
  MAX_ENDPOINTS_PER_WORKSPACE,
  type WebhookEndpointService,
  type WebhookEndpointView,
} from "../../webhooks/endpoint-service.ts";
import { RESERVED_EVENT_TYPES, SHIPPED_EVENT_TYPES } from "../../webhooks/event-types.ts";
import type { Principal } from "../../auth/principal.ts";
import { siteChoices, textParam } from "./page-params.ts";
import type { Renderer } from "./render.ts";
import { inWorkspace, isHtmx, localsOf } from "./workspace-context.ts";

export type WebhookPagesParts = {
  webhooks: WebhookEndpointService;
  webhookDeliveries: WebhookDeliveryService;
  sites: SiteService;
};

/** Deliveries a log shows at once; older ones page by page on the log's own page. */
const DELIVERIES_SHOWN = 20;

/** What each event type the form offers is sent for, in words. */
const EVENT_NOTES: Record<string, string> = {
  "conversation.ended": "a visitor's conversation ended",
  "conversation.recording_ready": "a conversation's recording can be fetched",
  "lead.captured": "a visitor left their contact details",
  "lead.updated": "a lead was changed",
  "usage.threshold": "the workspace passed a share of its plan's usage",
};

const eventChoices = (types: readonly string[]) =>
  types.map((type) => ({ type, note: EVENT_NOTES[type] }));

export function webhookPages(parts: WebhookPagesParts, render: Renderer): Router {
  const router = Router();
  const { webhooks, webhookDeliveries } = parts;
  const idOf = (req: Request) => req.params.id as string;
  const allEndpoints = async (principal: Principal) =>
    (await webhooks.list(principal, { limit: MAX_ENDPOINTS_PER_WORKSPACE })).items.map(shown);

  /** The endpoint's delivery log as the `webhook-deliveries` partial draws it. */
  async function logOf(principal: Principal, id: string, before?: DeliveryCursor) {
    const endpoint = shown(await webhooks.get(principal, id));
    const page = await webhookDeliveries.list(principal, id, { limit: DELIVERIES_SHOWN, before });
    return {
      endpoint,
      deliveries: page.items.map(deliveryRow),
      next: page.next === undefined ? undefined : encodeCursor(page.next),
      // Looked at again every few seconds while a delivery waits for its first attempt (one
      // kept while the endpoint was disabled waits for it to be enabled: that is not polled).
      awaiting:
        endpoint.enabled && before === undefined && page.items.some((d) => d.attempt_count === 0),
    };
  }

  router.get("/webhooks", inWorkspace, async (_req, res) => {
    const { workspace, principal } = localsOf(res);
    const { choices } = await siteChoices(parts.sites, principal);
    render.page(res, "webhooks", `Webhooks of ${workspace.name}`, {
      styles: ["webhooks.css"],
      endpoints: await allEndpoints(principal),
      limit: MAX_ENDPOINTS_PER_WORKSPACE,
      shippedEvents: eventChoices(SHIPPED_EVENT_TYPES),
      reservedEvents: eventChoices(RESERVED_EVENT_TYPES),
      sites: choices,
    });
  });

  router.post("/webhooks", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const created = await webhooks.create(principal, createBody(req.body));
    render.fragment(res, "webhook-created", { created, endpoints: await allEndpoints(principal) });
  });

  router.post("/webhooks/:id/test", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const sent = await webhookDeliveries.test(principal, idOf(req));
    render.fragment(res, "webhook-sent", {
      message: `Test event sent as delivery ${sent.delivery_id}: its result shows in the log.`,
      log: await logOf(principal, idOf(req)),
    });
  });

  router.get("/webhooks/:id/deliveries", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const before = decodeCursor(textParam(req, "cursor"), isNewestKey);
    const log = await logOf(principal, idOf(req), before);
    if (isHtmx(req)) return render.fragment(res, "webhook-deliveries", log);
    render.page(res, "webhook-log", `Deliveries to ${log.endpoint.url}`, {
      ...log,
      styles: ["webhooks.css"],
      older: before !== undefined,
    });
  });

  router.post("/webhooks/:id/deliveries/:delivery/redeliver", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const original = req.params.delivery as string;
    const sent = await webhookDeliveries.redeliver(principal, idOf(req), original);
    render.fragment(res, "webhook-sent", {
      message: `Delivery ${original} sent again as ${sent.delivery_id}.`,
      log: await logOf(principal, idOf(req)),
    });
  });

  for (const [action, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    router.post(`/webhooks/:id/${action}`, inWorkspace, async (req, res) => {
      const { principal } = localsOf(res);
      const endpoint = await webhooks.patch(principal, idOf(req), { enabled });
      render.fragment(res, "webhook-changed", {
        endpoint: shown(endpoint),
        message: enabled
          ? "Enabled again: new events are sent, and those it missed within the last 24 hours."
          : "Disabled: no events are sent to it until it is enabled again.",
      });
    });
  }

  router.post("/webhooks/:id/rotate-secret", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const { secret } = await webhooks.rotateSecret(principal, idOf(req));
    // The row's masked secret is swapped for the new one's.
    const endpoint = await webhooks.get(principal, idOf(req));
    render.fragment(res, "webhook-secret", { secret, endpoint });
  });

  router.delete("/webhooks/:id", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const endpoint = await webhooks.get(principal, idOf(req));
    await webhooks.delete(principal, endpoint.id);
    render.fragment(res, "webhook-deleted", { endpoint });
  });

  return router;
}

/** An endpoint as the page shows it: disabled with the API or here, it says so in words. */
const shown = (endpoint: WebhookEndpointView): WebhookEndpointView =>
  endpoint.disabled_reason === DISABLED_BY_API
    ? { ...endpoint, disabled_reason: "disabled by hand (here or with the API)" }
    : endpoint;

/** The create form as the API's body: the fields it names, events and sites as lists. */
function createBody(form: unknown): Record<string, unknown> {
  const fields = (typeof form === "object" && form !== null ? form : {}) as Record<string, unknown>;
  const body: Record<string, unknown> = { events: listOf(fields.events) };
  if (typeof fields.url === "string") body.url = fields.url.trim();
  if (typeof fields.description === "string" && fields.description.trim() !== "") {
    body.description = fields.description.trim();
  }
  const siteIds = listOf(fields.site_ids);
  if (siteIds.length > 0) body.site_ids = siteIds;
  return body;
}

/** A form field given once (a string), several times (a list) or not at all. */
const listOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(
    (item): item is string => typeof item === "string",
  );

/** A delivery as the log's row draws it, with its last attempt's answer. */
function deliveryRow(delivery: DeliveryView) {
  const last = delivery.attempts.reduce<DeliveryView["attempts"][number] | undefined>(
    (latest, attempt) =>
      latest === undefined || attempt.attempt > latest.attempt ? attempt : latest,
    undefined,
  );
  return { ...delivery, last };
}
