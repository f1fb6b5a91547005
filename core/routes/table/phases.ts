/**
 * The phases every route of the table runs through, in this order and no other:
 *
 *   origin → credential → limits → parse → authorize → handler → envelope
 *
 * (the request id is the app's first middleware, before any route). Each phase does nothing for a
 * route it does not concern, so adding a route cannot skip or reorder a check:
 * - origin: for the widget's access (`origin`, `signed`), the site of `:siteId` (404
 *   site_not_found) and the request's Origin (403 origin_not_allowed);
 * - credential: the session's signature over the raw body (`signed`), the API key (`key:…`);
 * - limits: the route's own limits, and an API key's 1,000 a minute;
 * - parse: the body (the raw bytes a signature covered, or JSON), valid under the route's schema,
 *   and the query parameters the route takes (any other is 400 where a key may call);
 * - authorize: the key's scope, and for a route under `:siteId`, that the site is the key's;
 * - handler: the route's own work;
 * - envelope: its answer in the envelope, with the status it says (a `bare` answer as it is).
 */
import { assertScope } from "../../auth/authorize.ts";
import type { Scope } from "../../auth/principal.ts";
import { errors, isServiceError } from "../../errors.ts";
import { API_KEY_LIMIT } from "../../http/api-key-auth.ts";
import { parseRawJson } from "../../http/body-parsers.ts";
import { sendData } from "../../http/envelope.ts";
import { queryParams } from "../../http/query-params.ts";
import { consumeLimit } from "../../http/rate-limit-headers.ts";
import { requireOrigin } from "../../http/site-origin.ts";
import type { ApiKeyService } from "../../keys/api-key-service.ts";
import type { RateLimiter, RateLimiterFactory } from "../../limits/rate-limiter.ts";
import type { SiteService } from "../../sites/site-service.ts";
import { validateBody } from "../../validation/schema-validator.ts";
import type { SessionService } from "../../widget/session-service.ts";
import type { Access, Answer, Call, Route } from "./route.ts";

export const PHASES = [
  "origin",
  "credential",
  "limits",
  "parse",
  "authorize",
  "handler",
  "envelope",
] as const;
export type Phase = (typeof PHASES)[number];

/** What the phases need of the service. */
export interface PhaseParts {
  sites: Pick<SiteService, "publicSite" | "assertOwned">;
  sessions: Pick<SessionService, "verify">;
  keys: Pick<ApiKeyService, "authenticate">;
  limiters: RateLimiterFactory;
}

/** A request on its way through the phases: the call the handler gets, and what it answered. */
export interface Passage {
  call: Call;
  raw?: Buffer;
  answer?: Answer;
}

export type PhaseRun = (route: Route, passage: Passage) => Promise<void>;

/** The phases of `parts`, by name; the limiters of each route's limits are made once, here. */
export function phases(parts: PhaseParts): Record<Phase, PhaseRun> {
  const keyLimiter = parts.limiters(API_KEY_LIMIT);
  const limiters = new Map<string, RateLimiter>();
  const limiterOf = (spec: { name: string; points: number; durationSeconds: number }) => {
    let limiter = limiters.get(spec.name);
    if (limiter === undefined) limiters.set(spec.name, (limiter = parts.limiters(spec)));
    return limiter;
  };
  return {
    async origin(_route, { call }) {
      if (call.access !== "origin" && call.access !== "signed") return;
      const siteId = call.req.params.siteId as string;
      const found = await parts.sites.publicSite(siteId);
      if (found === undefined) throw errors.siteNotFound(siteId);
      call.site = found;
      requireOrigin(call.req, call.res, found.site);
    },
    async credential(_route, passage) {
      const { call } = passage;
      if (call.access === "signed") {
        passage.raw = Buffer.isBuffer(call.req.body) ? call.req.body : Buffer.alloc(0);
        call.session = await parts.sessions.verify(
          call.site!.site.site_id,
          call.req.headers["x-service-session"],
          call.req.headers["x-service-signature"],
          passage.raw,
        );
      } else if (isKey(call.access)) {
        call.principal = await parts.keys.authenticate(call.req.get("authorization"));
      }
    },
    async limits(route, { call }) {
      if (call.principal !== undefined && isKey(call.access)) {
        await consumeLimit(keyLimiter, call.principal.keyId, call.res);
      }
      for (const limit of route.limits ?? []) {
        if (limit.for !== undefined && limit.for !== call.access) continue;
        const key =
          limit.by === "site"
            ? (call.site?.site.site_id ?? (call.req.params.siteId as string))
            : limit.by === "ip"
              ? (call.req.ip ?? "unknown")
              : (call.principal?.keyId ?? "none");
        await consumeLimit(limiterOf(limit.spec), key, call.res);
      }
    },
    async parse(route, passage) {
      const { call } = passage;
      // The API's rule (a parameter it does not take is 400) on every route a key may call, and
      // on any route that takes parameters; the widget's and health's paths ignore the rest.
      if (route.query !== undefined || route.access.some(isKey)) {
        call.query = queryParams(call.req, route.query ?? []);
      }
      if (route.body === undefined) return;
      const body = Buffer.isBuffer(call.req.body)
        ? parseRawJson(call.req.headers["content-type"], call.req.body)
        : call.req.body;
      call.body = validateBody(route.body, body ?? {});
    },
    async authorize(_route, { call }) {
      if (!isKey(call.access) || call.principal === undefined) return;
      assertScope(call.principal, call.access.slice("key:".length) as Scope);
      const siteId = call.req.params.siteId;
      if (typeof siteId !== "string") return;
      await parts.sites.assertOwned(call.principal, siteId).catch((e: unknown) => {
        throw isServiceError(e) && e.code === "not_found" ? errors.siteNotFound(siteId) : e;
      });
    },
    async handler(route, passage) {
      passage.answer = await route.handle(passage.call);
    },
    async envelope(route, { call, answer }) {
      if (answer === undefined || call.res.headersSent) return;
      const status = answer.status ?? route.response.status;
      if (route.response.bare === true) call.res.status(status).json(answer.data);
      else sendData(call.req, call.res, answer.data, { status, meta: answer.meta });
    },
  };
}

const isKey = (access: Access): access is `key:${Scope}` => access.startsWith("key:");

/**
 * The access a request is checked as: the key alternative when it brings an `Authorization`
 * header and the route takes a key, else the route's first other access (a key-only route checks
 * the key, which answers 401 when there is none).
 */
export function accessOf(route: Route, authorization: string | undefined): Access {
  const key = route.access.find(isKey);
  if (key !== undefined && (authorization !== undefined || route.access.length === 1)) return key;
  return route.access.find((access) => !isKey(access)) ?? route.access[0]!;
}
