/**
 * API keys over HTTP, for a signed-in dashboard user only (the API reference, "API keys"): `POST
 * /v1/api-keys` (the value shown once), `GET /v1/api-keys`, `DELETE /v1/api-keys/:id` (revoked at
 * once). An API key cannot make or list keys: only the cookie of a member of the workspace can.
 * The workspace is `?workspace_id=`, or the user's only one.
 */
import { Router } from "express";
import type { AccountService } from "../accounts/account-service.ts";
import { BODY_LIMIT_API, jsonBody } from "../http/body-parsers.ts";
import { dashboardSession, workspaceOf, type CookieSettings } from "../http/dashboard-session.ts";
import { sendData } from "../http/envelope.ts";
import { queryParams } from "../http/query-params.ts";
import type { ApiKeyService, NewApiKey } from "../keys/api-key-service.ts";
import { validateBody } from "../validation/schema-validator.ts";

export function apiKeysRoutes(parts: {
  accounts: AccountService;
  keys: ApiKeyService;
  settings: CookieSettings;
}): Router {
  const router = Router();
  const session = dashboardSession(parts.accounts, parts.settings, { required: true });

  router.post("/v1/api-keys", jsonBody(BODY_LIMIT_API), session, async (req, res) => {
    const workspaceId = workspaceOf(req, queryParams(req, ["workspace_id"]).workspace_id);
    const body = validateBody<NewApiKey>("api-key-create", req.body);
    sendData(req, res, await parts.keys.create(workspaceId, body), { status: 201 });
  });

  router.get("/v1/api-keys", session, async (req, res) => {
    const workspaceId = workspaceOf(req, queryParams(req, ["workspace_id"]).workspace_id);
    sendData(req, res, await parts.keys.list(workspaceId));
  });

  router.delete("/v1/api-keys/:id", session, async (req, res) => {
    const workspaceId = workspaceOf(req, queryParams(req, ["workspace_id"]).workspace_id);
    const id = req.params.id as string;
    await parts.keys.revoke(workspaceId, id);
    sendData(req, res, { id, revoked: true });
  });

  return router;
}
