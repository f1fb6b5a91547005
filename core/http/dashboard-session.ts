/**
 * The dashboard's cookie on a request: who is signed in, and the CSRF rule for what a cookie
 * may change. A request that changes state (anything but GET, HEAD and OPTIONS) on the cookie's
 * strength must come from the dashboard's own pages: `Sec-Fetch-Site: same-origin` (every
 * current browser sends it), or, without that header, an Origin exactly the service's own; and
 * a JSON or form body, which a cross-site form cannot send as JSON and which no plain
 * cross-site fetch sends without a preflight the service never answers. A GET that changes state
 * (the OAuth start a Connect link opens) holds itself to the same rule: assertFromDashboard. The
 * widget endpoints and the API-key endpoints never read the cookie at all.
 */
import { parse, serialize } from "cookie";
import type { NextFunction, Request, Response } from "express";
import type { AccountService } from "../accounts/account-service.ts";
import { errors } from "../errors.ts";

declare module "express-serve-static-core" {
  interface Request {
    /** The signed-in dashboard user, once `dashboardSession` ran and found one. */
    account?: NonNullable<Awaited<ReturnType<AccountService["session"]>>>;
  }
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
const BODY_TYPES =
  /^(application\/json|application\/x-www-form-urlencoded|multipart\/form-data)\b/i;

export interface CookieSettings {
  /** PUBLIC_BASE_URL: its origin is the dashboard's, and https makes the cookie Secure. */
  publicBaseUrl: string;
}

/** `sv_session`, or `__Host-sv_session` over https (host-only, Secure, path /). */
export const cookieName = (settings: CookieSettings) =>
  new URL(settings.publicBaseUrl).protocol === "https:" ? "__Host-sv_session" : "sv_session";

export function sessionCookie(settings: CookieSettings, token: string, expiresAt: number): string {
  return serialize(cookieName(settings), token, {
    httpOnly: true,
    sameSite: "lax",
    secure: new URL(settings.publicBaseUrl).protocol === "https:",
    path: "/",
    expires: new Date(expiresAt),
  });
}

export function clearedCookie(settings: CookieSettings): string {
  return serialize(cookieName(settings), "", {
    httpOnly: true,
    sameSite: "lax",
    secure: new URL(settings.publicBaseUrl).protocol === "https:",
    path: "/",
    expires: new Date(0),
  });
}

/**
 * Reads the cookie and, for a state change, checks it comes from the dashboard's own pages;
 * `required`: 401 when no session stands.
 */
export function dashboardSession(
  accounts: AccountService,
  settings: CookieSettings,
  options: { required: boolean },
) {
  const origin = new URL(settings.publicBaseUrl).origin;
  return async (req: Request, _res: Response, next: NextFunction) => {
    const token = parse(req.headers.cookie ?? "")[cookieName(settings)];
    const account = await accounts.session(token);
    if (account !== undefined && !SAFE.has(req.method)) assertFromDashboard(req, origin);
    if (account === undefined && options.required) {
      throw errors.unauthorized("Sign in to the dashboard first");
    }
    req.account = account;
    next();
  };
}

/**
 * The CSRF rule for a change made on the cookie's strength: it comes from the dashboard's own
 * pages (`origin`, PUBLIC_BASE_URL's), else 403 `forbidden` with `details.reason` `cross_site`
 * or `content_type`. A browser without Sec-Fetch-Site passes only with that Origin, which a
 * top-level navigation does not send: such a browser (older than 2023) cannot make a GET change.
 */
export function assertFromDashboard(req: Request, origin: string): void {
  const site = req.get("sec-fetch-site");
  const sameSite = site !== undefined ? site === "same-origin" : req.get("origin") === origin;
  if (!sameSite) {
    throw errors.forbidden("A dashboard change must come from the dashboard's own pages", {
      reason: "cross_site",
    });
  }
  const type = req.get("content-type");
  if (type !== undefined && !BODY_TYPES.test(type)) {
    throw errors.forbidden("A dashboard change must send JSON or a form", {
      reason: "content_type",
    });
  }
}

/** The workspace the signed-in user acts on: `workspace_id`, which must be one of theirs. */
export function workspaceOf(req: Request, given: string | undefined): string {
  const workspaces = req.account!.workspaces;
  if (given === undefined) {
    if (workspaces.length === 1) return workspaces[0]!.id;
    throw errors.invalidRequest("workspace_id is required: you are in several workspaces", {
      field: "workspace_id",
    });
  }
  if (!workspaces.some((w) => w.id === given)) throw errors.notFound("Workspace", given);
  return given;
}
