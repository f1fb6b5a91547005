/**
 * The dashboard's pages under `/dashboard`, rendered on the server from `dashboard/views/`
 * (Handlebars, escaped by default) with the assets of `dashboard/static/`, all from this origin:
 * the Content-Security-Policy allows nothing else, no inline script and no framing. An asset's URL
 * carries its content hash (`?v=…`), so it is cached for a year and changes with its content.
 * Pages that need a session send a visitor without one to sign in.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Router, type Request, type Response } from "express";
import Handlebars from "handlebars";
import type { AccountService } from "../accounts/account-service.ts";
import { scopes } from "../auth/principal.ts";
import { dashboardSession, type CookieSettings } from "../http/dashboard-session.ts";
import type { ApiKeyService } from "../keys/api-key-service.ts";
import type { Store } from "../store/store.ts";

const DASHBOARD_DIR = fileURLToPath(new URL("../../dashboard/", import.meta.url));
const PAGES = ["sign-in", "setup", "verify", "accept", "home", "keys", "members"] as const;
type Page = (typeof PAGES)[number];

const HEADERS = {
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  // Tokens travel in fragments, which are never sent; no page's address leaves either.
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  "Cache-Control": "no-store",
};

const TYPES: Record<string, string> = { ".css": "text/css", ".js": "text/javascript" };

/** The static assets, read once: their bytes and content hash. */
function loadAssets(): Map<string, { body: Buffer; version: string }> {
  const assets = new Map<string, { body: Buffer; version: string }>();
  const dir = path.join(DASHBOARD_DIR, "static");
  for (const name of fs.readdirSync(dir)) {
    const body = fs.readFileSync(path.join(dir, name));
    const version = crypto.createHash("sha256").update(body).digest("hex").slice(0, 12);
    assets.set(name, { body, version });
  }
  return assets;
}

function loadPages(assets: ReturnType<typeof loadAssets>) {
  const hbs = Handlebars.create();
  hbs.registerHelper("asset", (name: string) => {
    const asset = assets.get(name);
    if (asset === undefined) throw new Error(`no dashboard asset ${name}`);
    // Ours, of known characters: not escaped, so `=` stays `=` in the page.
    return new hbs.SafeString(`/dashboard/static/${name}?v=${asset.version}`);
  });
  const read = (name: string) =>
    hbs.compile(fs.readFileSync(path.join(DASHBOARD_DIR, "views", `${name}.hbs`), "utf8"), {
      strict: false,
    });
  const layout = read("layout");
  const pages = new Map(PAGES.map((name) => [name, read(name)]));
  return (page: Page, context: Record<string, unknown>) =>
    layout({ ...context, body: (pages.get(page) as HandlebarsTemplateDelegate)(context) });
}

/** Sites a key-limiting list offers at most; a workspace with more limits keys by the API. */
const SITES_LISTED = 200;

export function dashboardRoutes(parts: {
  accounts: AccountService;
  keys: ApiKeyService;
  store: Store;
  settings: CookieSettings & { signup: "open" | "invite" };
}): Router {
  const router = Router();
  const assets = loadAssets();
  const render = loadPages(assets);
  const send = (res: Response, page: Page, title: string, context: Record<string, unknown> = {}) =>
    res
      .set(HEADERS)
      .type("html")
      .send(render(page, { title, ...context }));
  // The cookie read as every dashboard route reads it; a page works out the rest itself.
  const signedIn = dashboardSession(parts.accounts, parts.settings, { required: false });
  /** The signed-in user's workspace named by `workspace_id`, if it is one of theirs. */
  const workspaceNamed = (req: Request) =>
    req.account?.workspaces.find((w) => w.id === req.query.workspace_id);

  router.get("/dashboard", signedIn, (req, res) => {
    const account = req.account;
    if (account === undefined) return res.redirect(303, "/dashboard/sign-in");
    send(res, "home", "Your workspaces", { account });
  });

  router.get("/dashboard/keys", signedIn, async (req, res) => {
    const account = req.account;
    if (account === undefined) return res.redirect(303, "/dashboard/sign-in");
    const workspace = workspaceNamed(req);
    if (workspace === undefined) return res.redirect(303, "/dashboard");
    const sites = await parts.store.sites.list(workspace.id, { limit: SITES_LISTED });
    send(res, "keys", `API keys of ${workspace.name}`, {
      account,
      workspace,
      scopes,
      sites: sites.map((site) => ({ site_id: site.site_id, business_name: site.business_name })),
      keys: [...(await parts.keys.list(workspace.id))].reverse(),
    });
  });

  router.get("/dashboard/members", signedIn, async (req, res) => {
    const account = req.account;
    if (account === undefined) return res.redirect(303, "/dashboard/sign-in");
    const workspace = workspaceNamed(req);
    if (workspace === undefined) return res.redirect(303, "/dashboard");
    send(res, "members", `People of ${workspace.name}`, {
      account,
      workspace,
      isOwner: workspace.role === "owner",
      members: await parts.accounts.members(workspace.id),
    });
  });

  router.get("/dashboard/sign-in", (_req, res) =>
    send(res, "sign-in", "Sign in", { signupOpen: parts.settings.signup === "open" }),
  );
  router.get("/dashboard/setup", (_req, res) => send(res, "setup", "Become the owner"));
  router.get("/dashboard/verify", (_req, res) => send(res, "verify", "Sign in with your link"));
  router.get("/dashboard/accept", (_req, res) => send(res, "accept", "Join the workspace"));

  router.get("/dashboard/static/:name", (req, res) => {
    const asset = assets.get(req.params.name as string);
    if (asset === undefined) return res.status(404).type("text").send("Not found");
    const current = req.query.v === asset.version;
    res
      .set({
        "Content-Type": `${TYPES[path.extname(req.params.name as string)] ?? "application/octet-stream"}; charset=utf-8`,
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": current ? "public, max-age=31536000, immutable" : "no-cache",
      })
      .send(asset.body);
  });

  return router;
}
