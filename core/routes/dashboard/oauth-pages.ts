/**
 * A site's OAuth connection in the dashboard: its page's section, whose Connect (or Reconnect)
 * link is `GET /v1/sites/:id/oauth/start` (a navigation, which the page's CSP lets leave for the
 * provider, where a form's redirect would be held to `form-action 'self'`), its Disconnect
 * button, and the provider's callback, `GET /v1/oauth/callback`, which a browser opens and
 * which therefore answers with pages: back to the page the connection started from, saying how it
 * went, or, for a link that names no site this browser may see, an error page. What a page says
 * comes from a fixed list keyed by `?oauth=`, so a link cannot make it say anything else.
 */
import { Router, type Request, type Response } from "express";
import type { Principal } from "../../auth/principal.ts";
import { httpStatus } from "../../http/error-status.ts";
import { OAuthCallbackError, type CallbackFailure } from "../../oauth/oauth-flow.ts";
import { oauthBlockOf } from "../../oauth/oauth-provider.ts";
import type { OAuthConnectionView, OAuthService } from "../../oauth/oauth-service.ts";
import type { PluginHost } from "../../host/plugin-host.ts";
import { sitePage, withOutcome, type StartFailure } from "../oauth-routes.ts";
import type { SiteView } from "../../sites/site-service.ts";
import type { Renderer } from "./render.ts";
import { inWorkspace, localsOf, toPage } from "./workspace-context.ts";

export interface OAuthPagesParts {
  oauth: OAuthService;
  plugins: PluginHost;
}

export type Outcome = "connected" | "disconnected" | StartFailure | CallbackFailure;

/** What the site page says after each outcome; `error` marks a failure. */
const NOTICES: Record<Outcome, { text: string; error?: true }> = {
  connected: { text: "Connected: the assistant can search your data now." },
  disconnected: {
    text: "Disconnected: the tokens are deleted (and revoked where the provider can).",
  },
  no_state: { text: "The provider's answer was incomplete. Connect again.", error: true },
  unknown_state: { text: "That connection link is unknown. Connect again.", error: true },
  other_workspace: { text: "That connection belongs to another workspace.", error: true },
  other_browser: { text: "Finish connecting in the browser that started it.", error: true },
  state_used: { text: "That connection link was used already. Connect again.", error: true },
  state_expired: {
    text: "That connection link expired (they last 10 minutes). Connect again.",
    error: true,
  },
  denied: { text: "The provider did not allow the connection.", error: true },
  provider_error: {
    text: "The provider did not complete the connection. Try again in a moment.",
    error: true,
  },
  not_configured: {
    text: "Connecting is not set up on this service yet: its operator adds an OAuth client for this adapter.",
    error: true,
  },
  too_many_starts: {
    text: "Too many connection attempts: wait a few minutes and connect again.",
    error: true,
  },
  cross_site: {
    text: "Connecting must start from the Connect button on this page: the link you followed came from elsewhere.",
    error: true,
  },
  start_failed: {
    text: "Connecting could not start. Check the site's adapter and try again.",
    error: true,
  },
  adapter_changed: {
    text: "The site's adapter changed while connecting. Connect again.",
    error: true,
  },
};

export function oauthPages(parts: OAuthPagesParts, _render: Renderer): Router {
  const router = Router();

  router.post("/sites/:id/oauth/disconnect", inWorkspace, async (req, res) => {
    const { principal, workspace } = localsOf(res);
    const siteId = req.params.id as string;
    await parts.oauth.disconnect(principal, siteId);
    toPage(res, withOutcome(sitePage(siteId, workspace.id), "disconnected"));
  });

  return router;
}

/** `GET /v1/oauth/callback`, behind the (optional) dashboard session. */
export function oauthCallback(parts: OAuthPagesParts, render: Renderer) {
  return async (req: Request, res: Response) => {
    const account = req.account;
    try {
      const { returnTo } = await parts.oauth.flow.finish(req.query as Record<string, unknown>, {
        userId: account?.user.id,
        workspaceIds: account?.workspaces.map((w) => w.id),
      });
      res.redirect(303, withOutcome(returnTo, "connected"));
    } catch (error) {
      if (!(error instanceof OAuthCallbackError)) throw error;
      if (error.returnTo !== undefined) {
        return res.redirect(303, withOutcome(error.returnTo, error.reason));
      }
      res.status(httpStatus(error.error));
      render.page(res, "error", "Could not connect", {
        message: NOTICES[error.reason].text,
        code: error.error.code,
      });
    }
  };
}

/**
 * The site page's connection section: undefined when the site's adapter does not use OAuth; else
 * where the connection stands and the notice `?oauth=` asks for.
 */
export async function connectionSection(
  parts: OAuthPagesParts,
  principal: Principal,
  site: SiteView,
  outcome: unknown,
): Promise<{ view: OAuthConnectionView; notice?: { text: string; error?: true } } | undefined> {
  const type = site.adapter?.type;
  if (type === undefined || oauthBlockOf(parts.plugins, type) === undefined) return undefined;
  const view = await parts.oauth.status(principal, site.site_id);
  const notice =
    typeof outcome === "string" && Object.hasOwn(NOTICES, outcome)
      ? NOTICES[outcome as Outcome]
      : undefined;
  return { view, notice };
}
