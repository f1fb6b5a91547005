/**
 * Leads after capture: `PATCH /v1/public/leads/:id` with the lead's own update token (sent once
 * in `lead.captured`) or a workspace key with sites:write; `GET /v1/leads` with sites:read.
 */
import { Router, type Request } from "express";
import { principalOf, whenKey, type apiKeyAuth } from "../http/api-key-auth.ts";
import { BODY_LIMIT_API, jsonBody } from "../http/body-parsers.ts";
import { sendData } from "../http/envelope.ts";
import { errors } from "../errors.ts";
import { isNewestKey } from "../store/newest-first.ts";
import { decodeCursor, encodeCursor, parseLimit } from "../http/pagination.ts";
import { queryParams } from "../http/query-params.ts";
import { LEAD_STATUSES, type LeadChanges, type LeadService } from "../leads/lead-service.ts";

const LEAD_TOKEN = /^Bearer (lt_[A-Za-z0-9_-]{32})$/;

/** The lead's update token when the request brings one rather than an API key. */
const leadToken = (req: Request) => LEAD_TOKEN.exec(req.headers.authorization ?? "")?.[1];

export function leadsRoutes(
  parts: { leads: LeadService },
  requireKey: ReturnType<typeof apiKeyAuth>,
): Router {
  const router = Router();

  router.patch(
    "/v1/public/leads/:id",
    jsonBody(BODY_LIMIT_API),
    whenKey(requireKey, "sites:write", (req) => leadToken(req) === undefined),
    async (req, res) => {
      queryParams(req, []);
      const changes = leadChanges(req.body);
      const token = leadToken(req);
      const by = token !== undefined ? { token } : { principal: principalOf(req) };
      sendData(req, res, await parts.leads.update(req.params.id as string, by, changes));
    },
  );

  router.get("/v1/leads", requireKey("sites:read"), async (req, res) => {
    const query = queryParams(req, ["site_id", "status", "cursor", "limit"]);
    const status = query.status;
    if (status !== undefined && !(LEAD_STATUSES as readonly string[]).includes(status)) {
      throw errors.invalidRequest(`status must be one of ${LEAD_STATUSES.join(", ")}`, {
        field: "status",
      });
    }
    const page = await parts.leads.list(principalOf(req), {
      limit: parseLimit(query.limit),
      before: decodeCursor(query.cursor, isNewestKey),
      siteId: query.site_id,
      status,
    });
    sendData(req, res, page.items, {
      meta: { next_cursor: page.next === undefined ? null : encodeCursor(page.next) },
    });
  });

  return router;
}

function leadChanges(body: unknown): LeadChanges {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw errors.invalidRequest("The body must be an object", { field: "body" });
  }
  const { status, notes, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) {
    throw errors.invalidRequest(`${unknown} is not a field a lead update takes (status, notes)`, {
      field: unknown,
    });
  }
  if (status !== undefined && !(LEAD_STATUSES as readonly unknown[]).includes(status)) {
    throw errors.invalidRequest(`status must be one of ${LEAD_STATUSES.join(", ")}`, {
      field: "status",
    });
  }
  if (
    notes !== undefined &&
    notes !== null &&
    (typeof notes !== "string" || notes.length > 10_000)
  ) {
    throw errors.invalidRequest("notes must be text of at most 10000 characters, or null", {
      field: "notes",
    });
  }
  return { status: status as string | undefined, notes: notes as string | null | undefined };
}
