/**
 * `GET /v1/:siteId/analytics/stream` (`analytics:read`, `Accept: text/event-stream`): the site's
 * usage events as Server-Sent Events, through better-sse (its session writes the SSE framing and
 * the heartbeat comment). Each event is `event: usage_event`, `id: <event id>`, `data: <UsageEvent
 * JSON>`; with `Last-Event-ID` the events after it are replayed from the store first
 * (core/analytics/usage-stream.ts).
 *
 * Refused before the stream opens, in the envelope: 401 and 403 as every key route, 404
 * `site_not_found`, 406 `not_acceptable` without `text/event-stream` in Accept, 400
 * `invalid_params` for a malformed `Last-Event-ID` or any query parameter, 429 past the open
 * streams a site, or a key, may have on one instance. Once open, it ends when the key is revoked or loses
 * the site (checked at each heartbeat), when its client falls too far behind, or when the
 * instance stops; the client reconnects with `Last-Event-ID` and loses nothing.
 */
import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { createSession } from "better-sse";
import { Router, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { AnalyticsService } from "../analytics/analytics-service.ts";
import type { StreamSink } from "../analytics/stream-subscriber.ts";
import type { UsageStream } from "../analytics/usage-stream.ts";
import { assertScope } from "../auth/authorize.ts";
import { actorOf, type Principal } from "../auth/principal.ts";
import { errors } from "../errors.ts";
import type { UsageEvent } from "../events/event-bus.ts";
import { principalOf, type apiKeyAuth } from "../http/api-key-auth.ts";
import { queryParams } from "../http/query-params.ts";
import type { ApiKeyService } from "../keys/api-key-service.ts";
import { isId } from "../store/ids.ts";

export interface StreamLimits {
  /** How often an idle stream gets a comment, and its key and site are checked again. */
  heartbeatMs: number;
  /** Open streams one site may have on one instance. */
  perSite: number;
  /** Open streams one key (on the dashboard, one member) may have on one instance. */
  perKey: number;
  /** Output a client may leave unread before it is cut off, in bytes. */
  maxUnreadBytes: number;
  /** How long a catch-up waits for its client to read a page. */
  drainWaitMs: number;
}

export const STREAM_LIMITS: Omit<StreamLimits, "heartbeatMs"> = {
  perSite: 20,
  perKey: 20,
  maxUnreadBytes: 1024 * 1024,
  drainWaitMs: 30_000,
};

/** What a browser's EventSource is told to wait before reconnecting. */
const RETRY_MS = 2_000;

export function analyticsStreamRoutes(
  parts: {
    analytics: AnalyticsService;
    usageStream: UsageStream;
    keys: ApiKeyService;
    logger: Logger;
  },
  requireKey: ReturnType<typeof apiKeyAuth>,
  limits: StreamLimits,
): Router {
  const router = Router();

  router.get("/v1/:siteId/analytics/stream", requireKey("analytics:read"), async (req, res) => {
    queryParams(req, [], errors.invalidParams);
    const principal = principalOf(req);
    const authorization = req.get("authorization");
    await serveUsageStream(req, res, parts, limits, {
      principal,
      siteId: req.params.siteId as string,
      async stillAllowed() {
        const again = await parts.keys.authenticate(authorization);
        assertScope(again, "analytics:read");
        await parts.analytics.checkAccess(again, req.params.siteId as string);
      },
      endedWhy: "stream ended: its key may no longer read the site",
    });
  });

  return router;
}

/**
 * The usage stream of a site on `res`, for the API's key and the dashboard's cookie alike: Accept
 * and Last-Event-ID checked, access checked, none while shutting down (503), at most `perSite`
 * open streams a site and `perKey` a key (429, each a slot taken before the setup and given back
 * however the stream ends); then events as SSE (replayed after Last-Event-ID), a heartbeat every
 * `heartbeatMs`, at each of which `stillAllowed` must pass or the stream ends.
 */
export async function serveUsageStream(
  req: Request,
  res: Response,
  parts: { analytics: AnalyticsService; usageStream: UsageStream; logger: Logger },
  limits: StreamLimits,
  access: {
    principal: Principal;
    siteId: string;
    stillAllowed: () => Promise<void>;
    /** Logged when `stillAllowed` ends the stream. */
    endedWhy: string;
  },
): Promise<void> {
  const { siteId } = access;
  if (req.accepts(["application/json", "text/event-stream"]) !== "text/event-stream") {
    throw errors.notAcceptable("The stream answers Accept: text/event-stream only", {
      accept: req.get("accept") ?? null,
    });
  }
  const lastEventId = req.get("last-event-id");
  if (lastEventId !== undefined && !isId("evt", lastEventId)) {
    throw errors.invalidParams("Last-Event-ID must be the id of an event this stream sent", {
      field: "Last-Event-ID",
    });
  }
  // Listened for before the first wait: a client that leaves during the setup ends it too.
  const watch = new AbortController();
  const leave = () => watch.abort();
  res.once("close", leave);
  if (res.destroyed) leave();
  await parts.analytics.checkAccess(access.principal, siteId);
  if (!parts.usageStream.accepting) {
    throw errors.serviceUnavailable("The service is shutting down; reconnect");
  }
  if (watch.signal.aborted) return;
  const release = parts.usageStream.slots.take(siteId, actorOf(access.principal), limits);
  let unsubscribe: (() => void) | undefined;
  try {
    const session = await createSession(req, res, {
      keepAlive: limits.heartbeatMs,
      retry: RETRY_MS,
      // The replay reads Last-Event-ID itself, checked above.
      trustClientEventId: false,
    });
    const sink = responseSink(res, limits, (event) => {
      if (!session.isConnected) return false;
      session.push(event, "usage_event", event.id);
      return true;
    });
    unsubscribe = await parts.usageStream.subscribe(siteId, sink, lastEventId);
    for (;;) {
      await delay(limits.heartbeatMs, undefined, { signal: watch.signal });
      await access.stillAllowed();
    }
  } catch (error) {
    if (!watch.signal.aborted) {
      parts.logger.info({ err: error, siteId }, access.endedWhy);
      res.end();
    }
  } finally {
    unsubscribe?.();
    release();
  }
}

/**
 * A sink writing to `res`, cutting its client off once it leaves too much unread; a catch-up waits
 * `drainWaitMs` at most for a page. The API's stream and the dashboard's live tail both use it.
 */
export function responseSink(
  res: Response,
  limits: Pick<StreamLimits, "maxUnreadBytes" | "drainWaitMs">,
  /** Writes the event; false when the connection has closed. */
  push: (event: UsageEvent) => boolean,
): StreamSink {
  return {
    write(event) {
      if (res.destroyed || !push(event)) return "gone";
      if (res.writableLength <= limits.maxUnreadBytes) return "written";
      res.destroy();
      return "behind";
    },
    async drained() {
      if (res.destroyed) return false;
      if (res.writableLength <= res.writableHighWaterMark) return true;
      const wait = new AbortController();
      const { signal } = wait;
      try {
        const drained = await Promise.race([
          once(res, "drain", { signal }).then(() => true),
          once(res, "close", { signal }).then(() => false),
          delay(limits.drainWaitMs, false, { signal }),
        ]);
        return drained && !res.destroyed;
      } finally {
        wait.abort();
      }
    },
    cut() {
      res.destroy();
    },
  };
}
