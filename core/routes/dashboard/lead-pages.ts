/**
 * The dashboard's leads: the workspace's leads newest first (filtered by site and status, a page
 * at a time), each with its status changed in place. A change goes through the LeadService update
 * the API's `PATCH /v1/public/leads/:id` uses, acting as the dashboard principal, so it is checked
 * the same way (another workspace's lead is 404) and announced as `lead.updated` the same way.
 */
import { Router, type Response } from "express";
import { errors, isServiceError } from "../../errors.ts";
import { isNewestKey } from "../../store/newest-first.ts";
import { decodeCursor, encodeCursor } from "../../http/pagination.ts";
import { LEAD_STATUSES, type LeadService } from "../../leads/lead-service.ts";
import type { LeadView } from "../../leads/lead-view.ts";
import { turnLine } from "../../leads/turn-line.ts";
import type { Principal } from "../../auth/principal.ts";
import type { SiteService } from "../../sites/site-service.ts";
import { oneOf, siteChoices, textParam } from "./page-params.ts";
import type { Renderer } from "./render.ts";
import { inWorkspace, localsOf } from "./workspace-context.ts";

export type LeadPagesParts = { leads: LeadService; sites: SiteService };

/** Leads the list shows at once; older ones come page by page. */
const LEADS_PER_PAGE = 50;
/** Characters of a lead's message the list shows. */
const EXCERPT_CHARS = 120;
/** Where a failed action's message goes: the answer area inside the form that asked. */
const ERROR_IN_FORM = { "HX-Retarget": "find .answer", "HX-Reswap": "innerHTML" };

/** What a row of the list shows of a lead. */
function leadRow(lead: LeadView, siteName: string | undefined, workspaceId: string) {
  const message = lead.message ?? "";
  return {
    ...lead,
    site_name: siteName ?? lead.site_id,
    tel: lead.phone?.replace(/[^0-9+]/g, ""),
    excerpt: message.length > EXCERPT_CHARS ? `${message.slice(0, EXCERPT_CHARS - 1)}…` : message,
    callback: lead.source === "callback",
    turn_lines: lead.turns.map(turnLine),
    statuses: LEAD_STATUSES,
    workspaceId,
  };
}

export function leadPages(parts: LeadPagesParts, render: Renderer): Router {
  const router = Router();
  const { leads, sites } = parts;

  router.get("/leads", inWorkspace, async (req, res) => {
    const { workspace, principal } = localsOf(res);
    const filter = {
      site_id: textParam(req, "site_id"),
      status: oneOf("status", textParam(req, "status"), LEAD_STATUSES),
    };
    const cursor = textParam(req, "cursor");
    const before = decodeCursor(cursor, isNewestKey);
    const [{ choices, names }, page] = await Promise.all([
      siteChoices(sites, principal),
      leads.list(principal, {
        limit: LEADS_PER_PAGE,
        siteId: filter.site_id,
        status: filter.status,
        before,
      }),
    ]);
    render.page(res, "leads", `Leads of ${workspace.name}`, {
      styles: ["leads.css"],
      filter,
      filtered: filter.site_id !== undefined || filter.status !== undefined,
      paged: cursor !== undefined,
      pager: cursor !== undefined || page.next !== undefined,
      sites: choices,
      statuses: LEAD_STATUSES,
      leads: page.items.map((lead) => leadRow(lead, names.get(lead.site_id), workspace.id)),
      next: page.next === undefined ? undefined : encodeCursor(page.next),
    });
  });

  router.post("/leads/:id", inWorkspace, async (req, res) => {
    const { workspace, principal } = localsOf(res);
    try {
      const body = req.body as Record<string, unknown>;
      const status = oneOf("status", body.status, LEAD_STATUSES);
      if (status === undefined) {
        throw errors.invalidRequest(`status must be one of ${LEAD_STATUSES.join(", ")}`, {
          field: "status",
        });
      }
      const lead = await leads.update(req.params.id as string, { principal }, { status });
      render.fragment(res, "lead-row", {
        ...leadRow(lead, await siteName(sites, principal, lead.site_id), workspace.id),
        changed: true,
      });
    } catch (error) {
      inForm(res);
      throw error;
    }
  });

  return router;
}

/** An error answered to a form's action shows in that form, not in place of what it targets. */
const inForm = (res: Response) => res.set(ERROR_IN_FORM);

/** The site's name, or undefined when the site was deleted meanwhile. */
function siteName(sites: SiteService, principal: Principal, siteId: string) {
  return sites.get(principal, siteId).then(
    (site) => site.business_name,
    (error: unknown) => {
      if (isServiceError(error) && error.code === "not_found") return undefined;
      throw error;
    },
  );
}
