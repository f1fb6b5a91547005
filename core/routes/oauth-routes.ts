/**
 * A site's OAuth connection, under `/v1/sites/:id/oauth`:
 * - `POST start` answers `{authorization_url, expires_at}`; `GET start` redirects (302) to it,
 *   for a link in a page (a member's that cannot start goes back to the site's page, saying why).
 *   Either with a `sites:write` key, or a dashboard session (then `?workspace_id=` when the
 *   member has several workspaces), whose starts, GET included, obey the dashboard's CSRF rule.
 *   20 starts per site per 10 minutes.
 * - `GET` (sites:read): where the connection stands, never a token.
 * - `DELETE` (sites:write): revokes at the provider where it can, and deletes the tokens.
 * The provider's callback (`GET /v1/oauth/callback`) is a browser's, answered with pages: it lives
 * with the dashboard (dashboard/oauth-pages.ts).
 */
import { Router, type NextFunction, type Request, type Response } from "express";
import type { AccountService } from "../accounts/account-service.ts";
import { isServiceError, type ServiceError } from "../errors.ts";
import { dashboardPrincipal } from "../auth/principal.ts";
import { principalOf, type apiKeyAuth } from "../http/api-key-auth.ts";
import { BODY_LIMIT_API, jsonBody } from "../http/body-parsers.ts";
import {
  assertFromDashboard,
  dashboardSession,
  workspaceOf,
  type CookieSettings,
} from "../http/dashboard-session.ts";
import { sendData } from "../http/envelope.ts";
import { queryParams } from "../http/query-params.ts";
import { consumeLimit } from "../http/rate-limit-headers.ts";
import type { RateLimiterFactory } from "../limits/rate-limiter.ts";
import type { OAuthService } from "../oauth/oauth-service.ts";
import type { OauthStart } from "../types/generated/oauth-start.ts";
import { validateBody } from "../validation/schema-validator.ts";

/** Starts of a site's connection: each stores a state, and a person follows at most a few. */
export const OAUTH_START_LIMIT = { name: "oauth-start", points: 20, durationSeconds: 600 };

/** Why a start from the dashboard's Connect link did not go to the provider. */
export type StartFailure = "not_configured" | "too_many_starts" | "cross_site" | "start_failed";

/** `url` with `?oauth=<outcome>` added (after its own query, if any), at its connection section. */
export const withOutcome = (url: string, outcome: string) =>
  `${url}${url.includes("?") ? "&" : "?"}oauth=${outcome}#connection`;

/** The site's dashboard page: where a connection started without `return_to` comes back to. */
export const sitePage = (siteId: string, workspaceId: string) =>
  `/dashboard/sites/${siteId}?workspace_id=${workspaceId}`;

function startFailure(error: ServiceError): StartFailure {
  if (error.code === "service_unavailable") return "not_configured";
  if (error.code === "forbidden" && error.details.reason === "cross_site") return "cross_site";
  return error.code === "rate_limited" ? "too_many_starts" : "start_failed";
}

export function oauthRoutes(
  parts: {
    oauth: OAuthService;
    accounts: AccountService;
    limiters: RateLimiterFactory;
    settings: CookieSettings;
  },
  requireKey: ReturnType<typeof apiKeyAuth>,
): Router {
  const router = Router();
  const dashboardOrigin = new URL(parts.settings.publicBaseUrl).origin;
  const starts = parts.limiters(OAUTH_START_LIMIT);
  const session = dashboardSession(parts.accounts, parts.settings, { required: true });
  // A key when the request brings one; else the member's session, acting on one workspace.
  const keyOrSession = async (req: Request, res: Response, next: NextFunction) => {
    if (req.headers.authorization !== undefined) return requireKey("sites:write")(req, res, next);
    await session(req, res, () => undefined);
    const workspaceId = workspaceOf(req, queryParams(req, ["workspace_id"]).workspace_id);
    req.principal = dashboardPrincipal(workspaceId, req.account!.user.id);
    next();
  };

  const start = async (req: Request, res: Response, returnTo: string | undefined) => {
    const principal = principalOf(req);
    const siteId = req.params.id as string;
    await consumeLimit(starts, siteId, res);
    return parts.oauth.flow.start(
      principal,
      siteId,
      returnTo ?? sitePage(siteId, principal.workspaceId),
    );
  };

  router.post(
    "/v1/sites/:id/oauth/start",
    jsonBody(BODY_LIMIT_API),
    keyOrSession,
    async (req, res) => {
      queryParams(req, ["workspace_id"]);
      const body = validateBody<OauthStart>("oauth-start", req.body ?? {});
      sendData(req, res, await start(req, res, body.return_to));
    },
  );

  router.get("/v1/sites/:id/oauth/start", keyOrSession, async (req, res) => {
    queryParams(req, ["workspace_id"]);
    try {
      // A navigation, yet it stores a state and counts a start: on the cookie's strength a link
      // on another site (or typed, Sec-Fetch-Site: none) could force a reconnect or spend the
      // site's starts, so it must come from the dashboard's own pages, as a form's change must.
      if (req.account !== undefined) assertFromDashboard(req, dashboardOrigin);
      res.redirect(302, (await start(req, res, undefined)).authorization_url);
    } catch (error) {
      // The dashboard's Connect link: back to the site's page, which says why, not a JSON page.
      if (req.account === undefined || !isServiceError(error)) throw error;
      const page = sitePage(req.params.id as string, principalOf(req).workspaceId);
      res.redirect(303, withOutcome(page, startFailure(error)));
    }
  });

  router.get("/v1/sites/:id/oauth", requireKey("sites:read"), async (req, res) => {
    queryParams(req, []);
    sendData(req, res, await parts.oauth.status(principalOf(req), req.params.id as string));
  });

  router.delete("/v1/sites/:id/oauth", requireKey("sites:write"), async (req, res) => {
    queryParams(req, []);
    const siteId = req.params.id as string;
    const { revoked } = await parts.oauth.disconnect(principalOf(req), siteId);
    sendData(req, res, { site_id: siteId, disconnected: true, revoked });
  });

  return router;
}
