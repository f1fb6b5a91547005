/**
 * A workspace's people, for its signed-in members: `GET /v1/workspace/members` and, for an owner,
 * `POST /v1/workspace/invitations` (a single-use link mailed, valid 7 days). The workspace is
 * `?workspace_id=`, or the user's only one.
 */
import { Router } from "express";
import type { AccountService } from "../accounts/account-service.ts";
import { BODY_LIMIT_API, jsonBody } from "../http/body-parsers.ts";
import { dashboardSession, workspaceOf, type CookieSettings } from "../http/dashboard-session.ts";
import { sendData } from "../http/envelope.ts";
import { queryParams } from "../http/query-params.ts";
import { consumeLimit } from "../http/rate-limit-headers.ts";
import type { RateLimiterFactory } from "../limits/rate-limiter.ts";
import type { Invitation } from "../types/generated/workspace-invitation.ts";
import { validateBody } from "../validation/schema-validator.ts";

/** Invitations a workspace sends: each is a mail, so not a loop's worth. */
export const INVITATION_LIMIT = { name: "invitations", points: 50, durationSeconds: 3600 };

export function workspaceRoutes(parts: {
  accounts: AccountService;
  limiters: RateLimiterFactory;
  settings: CookieSettings;
}): Router {
  const router = Router();
  const session = dashboardSession(parts.accounts, parts.settings, { required: true });
  const invitations = parts.limiters(INVITATION_LIMIT);

  router.get("/v1/workspace/members", session, async (req, res) => {
    const workspaceId = workspaceOf(req, queryParams(req, ["workspace_id"]).workspace_id);
    sendData(req, res, await parts.accounts.members(workspaceId));
  });

  router.post("/v1/workspace/invitations", jsonBody(BODY_LIMIT_API), session, async (req, res) => {
    const workspaceId = workspaceOf(req, queryParams(req, ["workspace_id"]).workspace_id);
    const body = validateBody<Invitation>("workspace-invitation", req.body);
    await consumeLimit(invitations, workspaceId, res);
    const sent = await parts.accounts.invite(req.account!.user, workspaceId, body);
    sendData(req, res, sent, { status: 201 });
  });

  return router;
}
