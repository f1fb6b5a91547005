/**
 * The widget-facing endpoints (the API reference, "Widget endpoints",
 * "Widget endpoints"): config, token and site intelligence checked by Origin; query, analytics
 * events, leads, transcripts, session resumption and call reports by Origin plus the session's
 * signature over the raw body. CORS answers only the site's own origins. A query may instead carry an API key with `query:test` (the debug path).
 */
import { Router, type Request, type Response } from "express";
import type { Logger } from "pino";
import { abortOnClientGone } from "../http/client-gone.ts";
import { principalOf, whenKey, type apiKeyAuth } from "../http/api-key-auth.ts";
import { BODY_LIMIT_WIDGET, jsonBody, parseRawJson } from "../http/body-parsers.ts";
import { sendData } from "../http/envelope.ts";
import { errors, isServiceError } from "../errors.ts";
import { limitersFor, type RateLimiterFactory } from "../limits/rate-limiter.ts";
import { consumeLimit } from "../http/rate-limit-headers.ts";
import type { PluginHost } from "../host/plugin-host.ts";
import type { RunSearchOptions } from "../search/run-search.ts";
import { searchSite } from "../search/site-search.ts";
import type { SiteService } from "../sites/site-service.ts";
import { validateBody } from "../validation/schema-validator.ts";
import type { LeadCapture } from "../types/generated/lead-create.ts";
import type { TokenRequest } from "../types/generated/token-create.ts";
import type { SessionResumption } from "../types/generated/session-resume.ts";
import type { CallReport } from "../types/generated/session-call.ts";
import type { Transcript } from "../types/generated/transcript-create.ts";
import type { UsageEventBatch } from "../types/generated/usage-event-batch.ts";
import type { UsageEventWrite } from "../types/generated/usage-event-write.ts";
import { answerPreflight, requireOrigin } from "../http/site-origin.ts";
import { rawBody, widgetGuards } from "./widget-guards.ts";
import type { SessionService } from "../widget/session-service.ts";
import type { LeadService } from "../leads/lead-service.ts";
import type { TokenService } from "../widget/token-service.ts";
import type { CallService } from "../widget/call-service.ts";
import type { TranscriptService } from "../widget/transcript-service.ts";
import type { UsageService } from "../widget/usage-service.ts";
import { widgetStrings } from "../widget/widget-strings.ts";
import type { SiteIntelligenceService } from "../intelligence/site-intelligence-service.ts";

export interface WidgetRouteParts {
  sites: SiteService;
  sessions: SessionService;
  tokens: TokenService;
  calls: CallService;
  usage: UsageService;
  leads: LeadService;
  transcripts: TranscriptService;
  intelligence: Pick<SiteIntelligenceService, "answer">;
  plugins: PluginHost;
  limiters: RateLimiterFactory;
  logger: Logger;
}

/** The limits of the API reference; leads and transcripts are ours (a conversation makes few). */
const LIMITS = {
  config: { name: "widget-config", points: 1200, durationSeconds: 60 },
  tokenPerIp: { name: "widget-token-ip", points: 10, durationSeconds: 60 },
  tokenPerSite: { name: "widget-token-site", points: 600, durationSeconds: 60 },
  queryPerMinute: { name: "widget-query-minute", points: 300, durationSeconds: 60 },
  queryPerSecond: { name: "widget-query-second", points: 30, durationSeconds: 1 },
  events: { name: "widget-events", points: 600, durationSeconds: 60 },
  leads: { name: "widget-leads", points: 60, durationSeconds: 60 },
  transcripts: { name: "widget-transcripts", points: 120, durationSeconds: 60 },
  intelligence: { name: "widget-site-intelligence", points: 120, durationSeconds: 60 },
  // The privacy notice asks once per page view at most.
  visitor: { name: "widget-visitor", points: 30, durationSeconds: 60 },
  // A call follows a token (or a resumption), which are 600 a minute per site.
  calls: { name: "widget-calls", points: 600, durationSeconds: 60 },
} as const;

const WIDGET_PATHS = [
  "/v1/:siteId/config",
  "/v1/:siteId/token",
  "/v1/:siteId/query",
  "/v1/:siteId/analytics/event",
  "/v1/:siteId/leads",
  "/v1/:siteId/transcript",
  "/v1/:siteId/site-intelligence",
  "/v1/:siteId/visitor",
  "/v1/:siteId/session/resume",
  "/v1/:siteId/session/call",
];

/** The widget paths read with GET; the others are POSTed. */
const GET_PATH = /\/(config|site-intelligence|visitor)$/;

export function widgetRoutes(
  parts: WidgetRouteParts,
  requireKey: ReturnType<typeof apiKeyAuth>,
): Router {
  const router = Router();
  const limit = limitersFor(parts.limiters, LIMITS);

  const { siteOf, signed } = widgetGuards(parts);

  router.options(WIDGET_PATHS, async (req, res) => {
    const target = await siteOf(req);
    requireOrigin(req, res, target.site);
    answerPreflight(res, GET_PATH.test(req.path) ? "GET" : "POST");
  });

  router.get("/v1/:siteId/config", async (req, res) => {
    const target = await siteOf(req);
    requireOrigin(req, res, target.site, { readableRefusal: true });
    await consumeLimit(limit.config, target.site.site_id, res);
    const { site } = target;
    const { strings, ...appearance } = site.appearance;
    sendData(req, res, {
      site_id: site.site_id,
      business_name: site.business_name,
      language: site.language,
      voice: site.voice,
      appearance,
      // The site's language and its overrides only: the widget carries English.
      strings: widgetStrings(site.language, strings),
      enabled_pages: site.enabled_pages,
      disabled_pages: site.disabled_pages,
      // Lead capture on: the panel offers "Talk to a person".
      callback: site.lead_capture.enabled,
      version: target.version,
    });
  });

  router.get("/v1/:siteId/site-intelligence", async (req, res) => {
    const target = await siteOf(req);
    requireOrigin(req, res, target.site);
    await consumeLimit(limit.intelligence, target.site.site_id, res);
    sendData(req, res, await parts.intelligence.answer(target));
  });

  // The visitor's own ID in the site's workspace, for the privacy notice: what they quote in a
  // data request.
  router.get("/v1/:siteId/visitor", async (req, res) => {
    const target = await siteOf(req);
    requireOrigin(req, res, target.site);
    await consumeLimit(limit.visitor, req.ip ?? "unknown", res);
    const fingerprint = await parts.sessions.fingerprint(target.workspaceId, {
      ip: req.ip ?? "",
      userAgent: req.headers["user-agent"] ?? "",
    });
    res.setHeader("Cache-Control", "no-store");
    sendData(req, res, { user_fingerprint: fingerprint });
  });

  router.post("/v1/:siteId/token", jsonBody(BODY_LIMIT_WIDGET), async (req, res) => {
    const target = await siteOf(req);
    requireOrigin(req, res, target.site);
    await consumeLimit(limit.tokenPerIp, req.ip ?? "unknown", res);
    await consumeLimit(limit.tokenPerSite, target.site.site_id, res);
    const answer = await parts.tokens.token(
      target,
      { ip: req.ip ?? "", userAgent: req.headers["user-agent"] ?? "" },
      validateBody<TokenRequest>("token-create", req.body ?? {}),
    );
    sendData(req, res, answer);
  });

  // Signed by the session it resumes; it mints a provider session, so the token's limits apply.
  router.post("/v1/:siteId/session/resume", rawBody, async (req, res) => {
    const target = await siteOf(req);
    const { session, body } = await signed(req, res, target);
    await consumeLimit(limit.tokenPerIp, req.ip ?? "unknown", res);
    await consumeLimit(limit.tokenPerSite, target.site.site_id, res);
    const resumption = validateBody<SessionResumption>("session-resume", body ?? {});
    sendData(req, res, await parts.tokens.resume(target, session, resumption));
  });

  router.post("/v1/:siteId/session/call", rawBody, async (req, res) => {
    const target = await siteOf(req);
    const { session, body } = await signed(req, res, target);
    await consumeLimit(limit.calls, target.site.site_id, res);
    const { call_id: callId } = validateBody<CallReport>("session-call", body);
    await parts.calls.report(session, callId);
    sendData(req, res, { session_id: session.id }, { status: 202 });
  });

  // The debug path: an API key with query:test replaces Origin and signature.
  router.post("/v1/:siteId/query", rawBody, whenKey(requireKey, "query:test"), async (req, res) => {
    if (req.principal !== undefined) {
      const siteId = req.params.siteId as string;
      const site = await parts.sites.openConfig(principalOf(req), siteId).catch((e: unknown) => {
        throw isServiceError(e) && e.code === "not_found" ? errors.siteNotFound(siteId) : e;
      });
      const body = parseRawJson(
        req.headers["content-type"],
        Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      );
      sendData(req, res, await searchSite(parts.plugins, site, body, searchOptions(req, res)));
      return;
    }
    const target = await siteOf(req);
    const { session, body } = await signed(req, res, target);
    await consumeLimit(limit.queryPerSecond, target.site.site_id, res);
    await consumeLimit(limit.queryPerMinute, target.site.site_id, res);
    const result = await searchSite(parts.plugins, target.site, body, searchOptions(req, res));
    // Not awaited: the answer does not wait for the batch, and shutdown still flushes it.
    parts.usage
      .recordQuery(session, body)
      .catch((err: unknown) =>
        parts.logger.warn({ err, site_id: session.site_id }, "db_query event not stored"),
      );
    sendData(req, res, result);
  });

  router.post("/v1/:siteId/analytics/event", rawBody, async (req, res) => {
    const target = await siteOf(req);
    const { session, body, raw } = await signed(req, res, target);
    if (isBatch(body)) {
      // Each event counts one point; a batch is checked whole first, since its size is its cost
      // (a refused one costs one point, as a refused single event does).
      let batch: UsageEventBatch;
      try {
        batch = validateBody<UsageEventBatch>("usage-event-batch", body);
      } catch (error) {
        await consumeLimit(limit.events, target.site.site_id, res);
        throw error;
      }
      await consumeLimit(limit.events, target.site.site_id, res, batch.events.length);
      // A failed write fails the request (503); a retry of the same bytes stores each event once.
      const stored = await parts.usage.recordEvents(session, batch.events, raw);
      sendData(req, res, { ids: stored.map((e) => e.id) }, { status: 202 });
      return;
    }
    await consumeLimit(limit.events, target.site.site_id, res);
    const event = validateBody<UsageEventWrite>("usage-event-write", body);
    const stored = await parts.usage.recordEvent(session, event, raw);
    sendData(req, res, { id: stored.id }, { status: 202 });
  });

  router.post("/v1/:siteId/leads", rawBody, async (req, res) => {
    const target = await siteOf(req);
    const { session, body, raw } = await signed(req, res, target);
    await consumeLimit(limit.leads, target.site.site_id, res);
    const lead = validateBody<LeadCapture>("lead-create", body);
    sendData(req, res, await parts.leads.capture(session, lead, raw), { status: 201 });
  });

  router.post("/v1/:siteId/transcript", rawBody, async (req, res) => {
    const target = await siteOf(req);
    const { session, body, raw } = await signed(req, res, target);
    await consumeLimit(limit.transcripts, target.site.site_id, res);
    const transcript = validateBody<Transcript>("transcript-create", body);
    const saved = await parts.transcripts.save(session, target.site, transcript, raw);
    sendData(req, res, saved, { status: 202 });
  });

  /**
   * The search's one abort, fired if the client goes away first, and its log line's logger (none
   * when info is off: a child logger per query costs more than the search's own checks).
   */
  function searchOptions(req: Request, res: Response): RunSearchOptions {
    const abort = abortOnClientGone(res);
    const logger = parts.logger.isLevelEnabled("info")
      ? parts.logger.child({ request_id: req.id, site_id: req.params.siteId })
      : undefined;
    return { abort, logger };
  }

  return router;
}

/** Whether a usage event body is the batch form: an object with `events`, whatever else it has. */
function isBatch(body: unknown): boolean {
  return typeof body === "object" && body !== null && !Array.isArray(body) && "events" in body;
}
