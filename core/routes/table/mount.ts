/**
 * The route table on Express: each route gets the body parser its access needs (the raw bytes
 * for a signed call, whose signature is checked before anything parses them; JSON otherwise,
 * within the widget's 64 KiB or the API's 1 MiB), then one handler that runs the phases in their
 * order (phases.ts). A path the widget calls also answers its CORS preflight for the site's
 * origins.
 */
import express, { Router, type RequestHandler } from "express";
import { BODY_LIMIT_API, BODY_LIMIT_WIDGET, jsonBody } from "../../http/body-parsers.ts";
import { abortOnClientGone } from "../../http/client-gone.ts";
import { answerPreflight, requireOrigin } from "../../http/site-origin.ts";
import { errors } from "../../errors.ts";
import { accessOf, PHASES, phases, type Passage, type Phase, type PhaseParts } from "./phases.ts";
import type { Route } from "./route.ts";

export interface MountOptions {
  /** Told of each phase as a request enters it (tests of the order). */
  trace?: (routeId: string, phase: Phase) => void;
}

/** A router serving `routes` through the phases of `parts`. */
export function mountRoutes(
  routes: readonly Route[],
  parts: PhaseParts,
  options: MountOptions = {},
): Router {
  const router = Router();
  const run = phases(parts);
  for (const route of routes) {
    const handle: RequestHandler = async (req, res) => {
      const passage: Passage = {
        call: {
          req,
          res,
          access: accessOf(route, req.headers.authorization),
          body: undefined,
          query: {},
          signal: abortOnClientGone(res).signal,
        },
      };
      for (const phase of PHASES) {
        options.trace?.(route.id, phase);
        await run[phase](route, passage);
      }
    };
    router[route.method](route.path, bodyParser(route), handle);
  }
  for (const [path, methods] of widgetPaths(routes)) {
    router.options(path, async (req, res) => {
      const siteId = req.params.siteId as string;
      const found = await parts.sites.publicSite(siteId);
      if (found === undefined) throw errors.siteNotFound(siteId);
      requireOrigin(req, res, found.site);
      answerPreflight(res, methods.join(", "));
    });
  }
  return router;
}

const widgetAccess = (route: Route) =>
  route.access.includes("origin") || route.access.includes("signed");

function bodyParser(route: Route): RequestHandler {
  const limit = widgetAccess(route) ? BODY_LIMIT_WIDGET : BODY_LIMIT_API;
  if (route.access.includes("signed")) return express.raw({ type: () => true, limit });
  return jsonBody(limit);
}

/** The paths the widget calls, with their methods, for the CORS preflight. */
function widgetPaths(routes: readonly Route[]): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  for (const route of routes.filter(widgetAccess)) {
    paths.set(route.path, [...(paths.get(route.path) ?? []), route.method.toUpperCase()]);
  }
  return paths;
}
