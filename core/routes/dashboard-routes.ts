/**
 * The dashboard under `/dashboard`: pages rendered on the server (dashboard/render.ts) with htmx
 * for what changes in place, each workspace page a module of `dashboard/`. Every page and action
 * reads the session cookie through one middleware, which also holds a change made with it to the
 * CSRF rule (core/http/dashboard-session.ts); an action's body is a form, parsed here.
 */
import path from "node:path";
import express, { Router } from "express";
import type { AccountService } from "../accounts/account-service.ts";
import { scopes } from "../auth/principal.ts";
import { BODY_LIMIT_API } from "../http/body-parsers.ts";
import { dashboardSession, type CookieSettings } from "../http/dashboard-session.ts";
import type { ApiKeyService } from "../keys/api-key-service.ts";
import type { Store } from "../store/store.ts";
import { ASSET_TYPES, createRenderer, loadAssets } from "./dashboard/render.ts";
import { dashboardErrors, inWorkspace, localsOf } from "./dashboard/workspace-context.ts";
import { siteChoices } from "./dashboard/page-params.ts";
import { knowledgePages, type KnowledgePagesParts } from "./dashboard/knowledge-pages.ts";
import { leadPages, type LeadPagesParts } from "./dashboard/lead-pages.ts";
import { sitePages, type SitePagesParts } from "./dashboard/site-pages.ts";
import { usagePages, type UsagePagesParts } from "./dashboard/usage-pages.ts";
import { visitorDataPages, type VisitorDataPagesParts } from "./dashboard/visitor-data-pages.ts";
import { webhookPages, type WebhookPagesParts } from "./dashboard/webhook-pages.ts";
import { oauthCallback, oauthPages } from "./dashboard/oauth-pages.ts";
import { voiceUnavailable, type VoiceAvailabilityParts } from "../voice/voice-availability.ts";

export type DashboardParts = SitePagesParts &
  KnowledgePagesParts &
  WebhookPagesParts &
  LeadPagesParts &
  UsagePagesParts &
  VisitorDataPagesParts &
  VoiceAvailabilityParts & {
    accounts: AccountService;
    keys: ApiKeyService;
    store: Store;
    settings: CookieSettings & { signup: "open" | "invite" };
  };

export function dashboardRoutes(parts: DashboardParts): Router {
  const router = Router();
  const assets = loadAssets();
  const render = createRenderer(assets);
  // The cookie read as every dashboard route reads it; a page works out the rest itself.
  const signedIn = dashboardSession(parts.accounts, parts.settings, { required: false });
  const form = express.urlencoded({ extended: false, limit: BODY_LIMIT_API, parameterLimit: 200 });
  const workspacePage = [signedIn, inWorkspace];

  // A browser opening the service's own address lands on the dashboard. An API client (curl's
  // Accept */*, application/json, no Accept at all) keeps the JSON 404 of any unknown path.
  router.get("/", (req, res, next) => {
    if (req.accepts(["json", "html"]) === "html") return res.redirect(302, "/dashboard");
    next();
  });

  // The pages an operator or site owner lands on say when no voice call can be had at all.
  router.get(
    ["/dashboard", "/dashboard/sites", "/dashboard/sites/:id"],
    async (_req, res, next) => {
      res.locals.voiceUnavailable = await voiceUnavailable(parts);
      next();
    },
  );

  router.get("/dashboard", signedIn, (req, res) => {
    const account = req.account;
    if (account === undefined) return res.redirect(303, "/dashboard/sign-in");
    render.page(res, "home", "Your workspaces", { account });
  });

  router.get("/dashboard/keys", ...workspacePage, async (_req, res) => {
    const { workspace, principal } = localsOf(res);
    render.page(res, "keys", `API keys of ${workspace.name}`, {
      scopes,
      sites: (await siteChoices(parts.sites, principal)).choices,
      keys: [...(await parts.keys.list(workspace.id))].reverse(),
    });
  });

  router.get("/dashboard/members", ...workspacePage, async (_req, res) => {
    const { workspace } = localsOf(res);
    render.page(res, "members", `People of ${workspace.name}`, {
      isOwner: workspace.role === "owner",
      members: await parts.accounts.members(workspace.id),
    });
  });

  // The provider sends the browser back here: a page, never a bare JSON answer.
  router.get("/v1/oauth/callback", signedIn, oauthCallback(parts, render));

  router.get("/dashboard/sign-in", (_req, res) =>
    render.page(res, "sign-in", "Sign in", { signupOpen: parts.settings.signup === "open" }),
  );
  router.get("/dashboard/setup", (_req, res) => render.page(res, "setup", "Become the owner"));
  router.get("/dashboard/verify", (_req, res) =>
    render.page(res, "verify", "Sign in with your link"),
  );
  router.get("/dashboard/confirm", (_req, res) =>
    render.page(res, "confirm", "Confirm your address"),
  );
  router.get("/dashboard/accept", (_req, res) => render.page(res, "accept", "Join the workspace"));

  router.get("/dashboard/static/:name", (req, res) => {
    const asset = assets.get(req.params.name as string);
    if (asset === undefined) return res.status(404).type("text").send("Not found");
    const current = req.query.v === asset.version;
    res
      .set({
        "Content-Type": `${ASSET_TYPES[path.extname(req.params.name as string)] ?? "application/octet-stream"}; charset=utf-8`,
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": current ? "public, max-age=31536000, immutable" : "no-cache",
      })
      .send(asset.body);
  });

  // Each workspace module's routes are relative to /dashboard and check the workspace themselves.
  const workspaceModules = Router().use(signedIn, form);
  const modules = [
    sitePages,
    knowledgePages,
    oauthPages,
    webhookPages,
    leadPages,
    usagePages,
    visitorDataPages,
  ];
  for (const pages of modules) {
    workspaceModules.use(pages(parts, render));
  }
  router.use("/dashboard", workspaceModules);
  router.use("/dashboard", dashboardErrors(render));
  return router;
}
