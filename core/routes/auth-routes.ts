/**
 * Dashboard accounts: `POST /v1/auth/signup`, `signin`, `magic-link`, `verify` (a sign-in link's
 * or a sign-up's confirmation), `setup` (the first owner's) and `accept` (an invitation), each
 * limited per client IP (429 with Retry-After); `signout`, and `GET /v1/auth/session` (who the
 * cookie names). `signin`, `verify`, `setup` and `accept` set the session cookie; sign-out clears
 * it and ends the session server-side.
 */
import { Router, type Request, type Response } from "express";
import type { AccountService, SignedIn } from "../accounts/account-service.ts";
import { BODY_LIMIT_API, jsonBody } from "../http/body-parsers.ts";
import {
  clearedCookie,
  dashboardSession,
  sessionCookie,
  type CookieSettings,
} from "../http/dashboard-session.ts";
import { sendData } from "../http/envelope.ts";
import { queryParams } from "../http/query-params.ts";
import { consumeLimit } from "../http/rate-limit-headers.ts";
import { limitersFor, type RateLimiterFactory } from "../limits/rate-limiter.ts";
import type { MagicLink } from "../types/generated/auth-magic-link.ts";
import type { SignIn } from "../types/generated/auth-signin.ts";
import type { SignUp } from "../types/generated/auth-signup.ts";
import type { MailedLinkVerification } from "../types/generated/auth-verify.ts";
import type { OwnerSetup } from "../types/generated/auth-setup.ts";
import type { InvitationAcceptance } from "../types/generated/auth-accept.ts";
import { validateBody } from "../validation/schema-validator.ts";

/** SPEC.md "Auth endpoint throttling": per client IP, a minute. */
export const AUTH_LIMITS = {
  signin: { name: "auth-signin", points: 20, durationSeconds: 60 },
  signup: { name: "auth-signup", points: 5, durationSeconds: 60 },
  magicLink: { name: "auth-magic-link", points: 5, durationSeconds: 60 },
  verify: { name: "auth-verify", points: 10, durationSeconds: 60 },
  // Not in SPEC.md's list; as verify, which they resemble (a mailed or printed token).
  setup: { name: "auth-setup", points: 10, durationSeconds: 60 },
  accept: { name: "auth-accept", points: 10, durationSeconds: 60 },
} as const;

export function authRoutes(
  parts: { accounts: AccountService; limiters: RateLimiterFactory; settings: CookieSettings },
  json = jsonBody(BODY_LIMIT_API),
): Router {
  const router = Router();
  const { accounts, settings } = parts;
  const limit = limitersFor(parts.limiters, AUTH_LIMITS);
  // The client IP as Express reads it: the socket's, unless TRUSTED_PROXIES names the proxies.
  const perIp = (name: keyof typeof AUTH_LIMITS, req: Request, res: Response) =>
    consumeLimit(limit[name], req.ip ?? "unknown", res);
  const signedIn = (res: Response, answer: SignedIn) =>
    res.setHeader("Set-Cookie", sessionCookie(settings, answer.token, answer.expiresAt));

  router.post("/v1/auth/signup", json, async (req, res) => {
    queryParams(req, []);
    await perIp("signup", req, res);
    // No session: the account counts once the mailed link proves its address. The same answer
    // for every address: what depends on it runs after the answer.
    const answer = accounts.signup(validateBody<SignUp>("auth-signup", req.body));
    sendData(req, res, answer, { status: 202 });
  });

  router.post("/v1/auth/signin", json, async (req, res) => {
    queryParams(req, []);
    await perIp("signin", req, res);
    const answer = await accounts.signin(validateBody<SignIn>("auth-signin", req.body));
    signedIn(res, answer);
    sendData(req, res, { user: answer.user, workspaces: answer.workspaces });
  });

  router.post("/v1/auth/magic-link", json, async (req, res) => {
    queryParams(req, []);
    await perIp("magicLink", req, res);
    // Not awaited: the answer goes before anything that depends on the address.
    accounts.magicLink(validateBody<MagicLink>("auth-magic-link", req.body).email);
    sendData(req, res, { sent: true }, { status: 202 });
  });

  router.post("/v1/auth/verify", json, async (req, res) => {
    queryParams(req, []);
    await perIp("verify", req, res);
    const body = validateBody<MailedLinkVerification>("auth-verify", req.body);
    const answer = await accounts.verify(body.token);
    signedIn(res, answer);
    sendData(req, res, { user: answer.user, workspaces: answer.workspaces });
  });

  router.post("/v1/auth/setup", json, async (req, res) => {
    queryParams(req, []);
    await perIp("setup", req, res);
    const answer = await accounts.setup(validateBody<OwnerSetup>("auth-setup", req.body));
    signedIn(res, answer);
    sendData(req, res, { user: answer.user, workspaces: answer.workspaces });
  });

  router.post("/v1/auth/accept", json, async (req, res) => {
    queryParams(req, []);
    await perIp("accept", req, res);
    const body = validateBody<InvitationAcceptance>("auth-accept", req.body);
    const answer = await accounts.accept(body);
    signedIn(res, answer);
    sendData(req, res, { user: answer.user, workspaces: answer.workspaces });
  });

  const session = dashboardSession(accounts, settings, { required: true });

  router.post("/v1/auth/signout", json, session, async (req, res) => {
    queryParams(req, []);
    await accounts.signout(req.account!.sessionId);
    res.setHeader("Set-Cookie", clearedCookie(settings));
    sendData(req, res, { signed_out: true });
  });

  router.get("/v1/auth/session", session, (req, res) => {
    queryParams(req, []);
    const { user, workspaces } = req.account!;
    sendData(req, res, { user, workspaces });
  });

  return router;
}
