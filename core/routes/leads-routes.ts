/**
 * Leads after capture: `PATCH /v1/public/leads/:id` with the lead's own update token (sent once
 * in `lead.captured`) or a workspace key with sites:write; `GET /v1/leads` with sites:read.
 */
import { Router } from "express";
import type { apiKeyAuth } from "../http/api-key-auth.ts";
import { BODY_LIMIT_API, jsonBody } from "../http/body-parsers.ts";
import { sendData } from "../http/envelope.ts";
import { errors } from "../errors.ts";
import { decodeCursor, encodeCursor, parseLimit } from "../http/pagination.ts";
import { queryParams } from "../http/query-params.ts";
import type { SiteService } from "../sites/site-service.ts";
import type { LeadCursor } from "../store/repos/leads-repo.ts";
import type { Store } from "../store/store.ts";
import { LEAD_STATUSES, leadView, type WidgetService } from "../widget/widget-service.ts";

const LEAD_TOKEN = /^Bearer (lt_[A-Za-z0-9_-]{32})$/;

export function leadsRoutes(
  parts: { store: Store; widget: WidgetService; sites: SiteService },
  requireKey: ReturnType<typeof apiKeyAuth>,
): Router {
  const router = Router();

  router.patch("/v1/public/leads/:id", jsonBody(BODY_LIMIT_API), async (req, res) => {
    queryParams(req, []);
    const changes = leadChanges(req.body);
    const leadId = req.params.id as string;
    const token = LEAD_TOKEN.exec(req.headers.authorization ?? "")?.[1];
    if (token !== undefined) {
      sendData(req, res, await parts.widget.updateLead(leadId, { token }, changes));
      return;
    }
    // Authenticates (401, 403, 429 by throwing) and sets req.principal.
    await requireKey("sites:write")(req, res, () => undefined);
    const principal = req.principal!;
    const lead = await parts.widget.updateLead(
      leadId,
      { workspaceId: principal.workspaceId, siteIds: principal.siteIds },
      changes,
    );
    sendData(req, res, lead);
  });

  router.get("/v1/leads", requireKey("sites:read"), async (req, res) => {
    const principal = req.principal!;
    const query = queryParams(req, ["site_id", "status", "cursor", "limit"]);
    const limit = parseLimit(query.limit);
    const before = decodeCursor(query.cursor, isLeadCursor);
    const { site_id: siteId, status } = query;
    // A site the key may not see is 403, another workspace's 404: never an empty list.
    if (siteId !== undefined) await parts.sites.get(principal, siteId);
    if (status !== undefined && !(LEAD_STATUSES as readonly string[]).includes(status)) {
      throw errors.invalidRequest(`status must be one of ${LEAD_STATUSES.join(", ")}`, {
        field: "status",
      });
    }
    const rows = await parts.store.leads.list(principal.workspaceId, {
      limit: limit + 1,
      siteId,
      status,
      before,
      siteIds: principal.siteIds === undefined ? undefined : [...principal.siteIds],
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    sendData(req, res, page.map(leadView), {
      meta: {
        next_cursor:
          rows.length > limit && last !== undefined
            ? encodeCursor({ created_at: Number(last.created_at), id: last.id })
            : null,
      },
    });
  });

  return router;
}

function leadChanges(body: unknown): { status?: string; notes?: string | null } {
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

const isLeadCursor = (value: unknown): value is LeadCursor =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as LeadCursor).created_at === "number" &&
  typeof (value as LeadCursor).id === "string";
