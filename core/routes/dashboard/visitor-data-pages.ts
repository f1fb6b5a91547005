/**
 * The dashboard's visitor data: the workspace's export and erasure requests (filtered by site,
 * kind and status, a page at a time, a finished export with its signed download link), a lookup
 * of the fingerprints a site's leads hold for an email or phone, and forms asking an export or an
 * erasure of one visitor. Each goes through the UserDataService calls of `/v1/user-data/*`, with
 * the same body schema, the same hourly request limit per workspace and the same dedupe (asking
 * again while a request of that kind is open answers the open one); an erasure must be confirmed.
 */
import { Router, type Request, type RequestHandler, type Response } from "express";
import { errors } from "../../errors.ts";
import { decodeCursor, encodeCursor } from "../../http/pagination.ts";
import { consumeLimit } from "../../http/rate-limit-headers.ts";
import { isNewestKey } from "../../store/newest-first.ts";
import type { RateLimiterFactory } from "../../limits/rate-limiter.ts";
import type { SiteService } from "../../sites/site-service.ts";
import type { UserDataKind, UserDataStatus } from "../../store/repos/user-data-repo.ts";
import type { UserDataRequest } from "../../types/generated/user-data-request.ts";
import type { RequestView } from "../../user-data/request-view.ts";
import { FINGERPRINT, type UserDataService } from "../../user-data/user-data-service.ts";
import { validateBody } from "../../validation/schema-validator.ts";
import { lookupContact, REQUEST_LIMIT } from "../user-data-routes.ts";
import { oneOf, siteChoices, textParam } from "./page-params.ts";
import type { Renderer } from "./render.ts";
import { inWorkspace, localsOf } from "./workspace-context.ts";

export type VisitorDataPagesParts = {
  userData: UserDataService;
  sites: SiteService;
  limiters: RateLimiterFactory;
};

/** Requests the list shows at once; older ones come page by page. */
const REQUESTS_PER_PAGE = 50;
const KINDS = ["export", "delete"] as const;
const STATUSES = ["pending", "running", "done", "failed"] as const;
/** What the page calls each kind. */
const KIND_NAMES: Record<UserDataKind, string> = { export: "export", delete: "erasure" };
/** The event an ask sends the page, on which the list draws itself again. */
const CHANGED = "visitor-data-changed";

/** The list's filters and page, from the query. */
function listQuery(req: Request) {
  const filter = {
    site_id: textParam(req, "site_id"),
    kind: oneOf<UserDataKind>("kind", textParam(req, "kind"), KINDS),
    status: oneOf<UserDataStatus>("status", textParam(req, "status"), STATUSES),
  };
  return { filter, cursor: textParam(req, "cursor") };
}

/** A URL's path and query: a link on this origin. */
const pathAndQuery = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

/** A request as the list shows it: its kind's name, its site's, its counts and its link. */
function requestRow(request: RequestView, siteName: string | undefined) {
  const link = "download_url" in request ? request.download_url : undefined;
  return {
    ...request,
    kind_name: KIND_NAMES[request.type],
    site_name: siteName ?? request.site_id,
    open: request.status === "pending" || request.status === "running",
    counts: Object.entries(request.result ?? {}).map(([name, value]) => ({
      name: name.replace(/_/g, " "),
      value: String(value),
    })),
    // The signed link the API gives, on this origin: its path and query.
    download: typeof link === "string" ? pathAndQuery(link) : undefined,
  };
}

export function visitorDataPages(parts: VisitorDataPagesParts, render: Renderer): Router {
  const router = Router();
  const { userData, sites } = parts;
  const asks = parts.limiters(REQUEST_LIMIT);

  /** The list's context: its rows, its filters and its next page. */
  const requestList = async (req: Request, res: Response, names: Map<string, string>) => {
    const { principal, workspace } = localsOf(res);
    const { filter, cursor } = listQuery(req);
    const page = await userData.list(principal, {
      limit: REQUESTS_PER_PAGE,
      siteId: filter.site_id,
      kind: filter.kind,
      status: filter.status,
      before: decodeCursor(cursor, isNewestKey),
    });
    const requests = page.items.map((r) => requestRow(r, names.get(r.site_id)));
    return {
      filter,
      filtered: Object.values(filter).some((value) => value !== undefined),
      cursor,
      paged: cursor !== undefined,
      pager: cursor !== undefined || page.next !== undefined,
      next: page.next === undefined ? undefined : encodeCursor(page.next),
      requests,
      anyOpen: requests.some((r) => r.open),
      workspaceId: workspace.id,
    };
  };

  router.get("/visitor-data", inWorkspace, async (req, res) => {
    const { workspace, principal } = localsOf(res);
    const { choices, names } = await siteChoices(sites, principal);
    const list = await requestList(req, res, names);
    const fingerprint = textParam(req, "user_fingerprint");
    render.page(res, "visitor-data", `Visitor data of ${workspace.name}`, {
      styles: ["leads.css"],
      sites: choices,
      kinds: KINDS.map((kind) => ({ value: kind, name: KIND_NAMES[kind] })),
      statuses: STATUSES,
      list,
      ask: {
        site_id: list.filter.site_id,
        user_fingerprint:
          fingerprint !== undefined && FINGERPRINT.test(fingerprint) ? fingerprint : undefined,
      },
    });
  });

  router.get("/visitor-data/requests", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const { names } = await siteChoices(sites, principal);
    render.fragment(res, "visitor-data-requests", { list: await requestList(req, res, names) });
  });

  router.get("/visitor-data/lookup", inWorkspace, async (req, res) => {
    const { principal, workspace } = localsOf(res);
    const siteId = textParam(req, "site_id");
    if (siteId === undefined) throw errors.invalidRequest("Choose a site", { field: "site_id" });
    const contact = lookupContact(textParam(req, "email"), textParam(req, "phone"));
    const found = await userData.lookup(principal, siteId, contact);
    render.fragment(res, "visitor-data-lookup", {
      found: found.map((f) => ({ ...f, leads: f.lead_ids.length })),
      site_id: siteId,
      contact: "email" in contact ? contact.email : contact.phone,
      workspaceId: workspace.id,
    });
  });

  const ask =
    (kind: UserDataKind): RequestHandler =>
    async (req, res) => {
      const { principal } = localsOf(res);
      const form = req.body as Record<string, unknown>;
      if (kind === "delete" && form.confirm !== "yes") {
        throw errors.invalidRequest("Tick the box to confirm the erasure: it cannot be undone", {
          field: "confirm",
        });
      }
      const fields: Record<string, unknown> = {};
      if (form.site_id !== undefined) fields.site_id = form.site_id;
      const fingerprint = form.user_fingerprint;
      if (fingerprint !== undefined) {
        // As pasted: spaces around it or capitals name the same visitor.
        fields.user_fingerprint =
          typeof fingerprint === "string" ? fingerprint.trim().toLowerCase() : fingerprint;
      }
      const body = validateBody<UserDataRequest>("user-data-request", fields);
      await consumeLimit(asks, principal.workspaceId, res);
      const asked = Date.now();
      const request = await userData.request(principal, kind, body);
      res.set("HX-Trigger", CHANGED);
      render.fragment(res, "visitor-data-asked", {
        ...request,
        kind_name: KIND_NAMES[kind],
        // The open request of that kind, answered again rather than a second one.
        already: Date.parse(request.created_at) < asked,
      });
    };
  router.post("/visitor-data/export", inWorkspace, ask("export"));
  router.post("/visitor-data/delete", inWorkspace, ask("delete"));

  return router;
}
