/**
 * What every widget endpoint checks before its own work, shared by the widget's route files: the
 * site by its id alone (404 site_not_found), the request's Origin, and for a signed call the
 * session's signature over the raw body, checked before the JSON it holds is parsed.
 */
import express, { type Request, type Response } from "express";
import { BODY_LIMIT_WIDGET, parseRawJson } from "../http/body-parsers.ts";
import { requireOrigin } from "../http/site-origin.ts";
import { errors } from "../errors.ts";
import type { SiteService } from "../sites/site-service.ts";
import type { PublicSite } from "../sites/site-types.ts";
import type { SessionRow } from "../store/repos/sessions-repo.ts";
import type { SessionService } from "../widget/session-service.ts";

/** The raw bytes of a signed body: the signature is checked before anything parses them. */
export const rawBody = express.raw({ type: () => true, limit: BODY_LIMIT_WIDGET });

/** A signed call's session, the JSON of its body, and the bytes that were signed. */
export interface SignedCall {
  session: SessionRow;
  body: unknown;
  raw: Buffer;
}

export interface WidgetGuards {
  /** The site of `:siteId`; 404 site_not_found for an unknown one. */
  siteOf(req: Request): Promise<PublicSite>;
  /** Origin, then the session's signature over the raw body, then the JSON it holds. */
  signed(req: Request, res: Response, target: PublicSite): Promise<SignedCall>;
}

export function widgetGuards(parts: {
  sites: Pick<SiteService, "publicSite">;
  sessions: Pick<SessionService, "verify">;
}): WidgetGuards {
  return {
    async siteOf(req) {
      const siteId = req.params.siteId as string;
      const found = await parts.sites.publicSite(siteId);
      if (found === undefined) throw errors.siteNotFound(siteId);
      return found;
    },
    async signed(req, res, target) {
      requireOrigin(req, res, target.site);
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const session = await parts.sessions.verify(
        target.site.site_id,
        req.headers["x-service-session"],
        req.headers["x-service-signature"],
        raw,
      );
      return { session, body: parseRawJson(req.headers["content-type"], raw), raw };
    },
  };
}
