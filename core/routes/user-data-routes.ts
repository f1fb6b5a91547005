/**
 * Visitor data rights, all with `sites:write` but the download, which its signature authorizes:
 * `POST /v1/user-data/export` and `/delete` (202 with the request, the open one of that kind if
 * there is one; 100 an hour per workspace), `GET /v1/user-data/requests/:id` and `GET
 * /v1/user-data/requests` (newest first, a cursor), `GET /v1/user-data/lookup` (the fingerprints
 * of a site's leads with an email or phone) and `GET /v1/user-data/exports/:id/download` (the
 * export document behind a signed link, no key).
 */
import { Router, type RequestHandler } from "express";
import { errors } from "../errors.ts";
import { isNewestKey } from "../store/newest-first.ts";
import { principalOf, type apiKeyAuth } from "../http/api-key-auth.ts";
import { BODY_LIMIT_API, jsonBody } from "../http/body-parsers.ts";
import { sendData } from "../http/envelope.ts";
import { decodeCursor, encodeCursor, parseLimit } from "../http/pagination.ts";
import { queryParams } from "../http/query-params.ts";
import { consumeLimit } from "../http/rate-limit-headers.ts";
import type { RateLimiterFactory } from "../limits/rate-limiter.ts";
import type { UserDataKind, UserDataStatus } from "../store/repos/user-data-repo.ts";
import type { UserDataRequest } from "../types/generated/user-data-request.ts";
import type { UserDataService } from "../user-data/user-data-service.ts";
import { validateBody } from "../validation/schema-validator.ts";

/** New requests a workspace may make: a privacy tool's batch, not a loop. */
export const REQUEST_LIMIT = { name: "user-data-requests", points: 100, durationSeconds: 3600 };
/** Downloads of one export: enough for retries, not for hammering a leaked link. */
export const DOWNLOAD_LIMIT = { name: "user-data-downloads", points: 30, durationSeconds: 3600 };

const TYPES = ["export", "delete"] as const;
const STATUSES = ["pending", "running", "done", "failed"] as const;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw errors.invalidRequest(`${name} must be one of ${allowed.join(", ")}`, { field: name });
  }
  return value as T;
}

export function userDataRoutes(
  parts: { userData: UserDataService; limiters: RateLimiterFactory },
  requireKey: ReturnType<typeof apiKeyAuth>,
): Router {
  const router = Router();
  const requests = parts.limiters(REQUEST_LIMIT);
  const downloads = parts.limiters(DOWNLOAD_LIMIT);

  const create =
    (kind: UserDataKind): RequestHandler =>
    async (req, res) => {
      queryParams(req, []);
      const body = validateBody<UserDataRequest>("user-data-request", req.body);
      const principal = principalOf(req);
      await consumeLimit(requests, principal.workspaceId, res);
      sendData(req, res, await parts.userData.request(principal, kind, body), { status: 202 });
    };
  const writes = [jsonBody(BODY_LIMIT_API), requireKey("sites:write")];
  router.post("/v1/user-data/export", ...writes, create("export"));
  router.post("/v1/user-data/delete", ...writes, create("delete"));

  router.get("/v1/user-data/requests", requireKey("sites:write"), async (req, res) => {
    const query = queryParams(req, ["site_id", "type", "status", "limit", "cursor"]);
    const page = await parts.userData.list(principalOf(req), {
      limit: parseLimit(query.limit),
      before: decodeCursor(query.cursor, isNewestKey),
      siteId: query.site_id,
      kind: oneOf("type", query.type, TYPES),
      status: oneOf<UserDataStatus>("status", query.status, STATUSES),
    });
    sendData(req, res, page.items, {
      meta: { next_cursor: page.next === undefined ? null : encodeCursor(page.next) },
    });
  });

  router.get("/v1/user-data/requests/:id", requireKey("sites:write"), async (req, res) => {
    queryParams(req, []);
    sendData(req, res, await parts.userData.get(principalOf(req), req.params.id as string));
  });

  router.get("/v1/user-data/lookup", requireKey("sites:write"), async (req, res) => {
    const query = queryParams(req, ["site_id", "email", "phone"]);
    if (query.site_id === undefined || query.site_id === "") {
      throw errors.invalidRequest("site_id is required", { field: "site_id" });
    }
    const contact = lookupContact(query.email, query.phone);
    sendData(req, res, await parts.userData.lookup(principalOf(req), query.site_id, contact));
  });

  router.get("/v1/user-data/exports/:id/download", async (req, res) => {
    const query = queryParams(req, ["expires", "signature"]);
    const id = req.params.id as string;
    const document = await parts.userData.download(id, query.expires, query.signature);
    await consumeLimit(downloads, id, res);
    res
      .status(200)
      .set({
        "Content-Type": "application/json; charset=utf-8",
        "Content-Disposition": `attachment; filename="sitevoice-export-${id}.json"`,
        "Cache-Control": "no-store",
      })
      .send(document);
  });

  return router;
}

export function lookupContact(
  email: string | undefined,
  phone: string | undefined,
): { email: string } | { phone: string } {
  if ((email === undefined) === (phone === undefined)) {
    throw errors.invalidRequest("Give either email or phone", { field: "email" });
  }
  if (email !== undefined) {
    if (email.length > 320 || !EMAIL.test(email)) {
      throw errors.invalidRequest("email must be an email address", { field: "email" });
    }
    return { email };
  }
  const digits = (phone as string).replace(/\D/g, "").length;
  if ((phone as string).length > 50 || digits < 7 || digits > 20) {
    throw errors.invalidRequest("phone must hold 7 to 20 digits (and at most 50 characters)", {
      field: "phone",
    });
  }
  return { phone: phone as string };
}
