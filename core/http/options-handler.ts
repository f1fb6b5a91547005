/**
 * OPTIONS on an API path: 200 in the envelope, `data.allow` and an `Allow` header with the path's
 * methods. Without it each Express Router answers OPTIONS itself, in text/plain outside the
 * envelope, as soon as it runs out of layers; so this runs before the routers. A path whose routes
 * take OPTIONS themselves (the widget's CORS preflights) is left to them, and an unknown path goes
 * on to the 404.
 */
import type { NextFunction, Request, Response } from "express";
import { sendData } from "./envelope.ts";
import { pathMethods } from "./path-methods.ts";

export function optionsHandler(req: Request, res: Response, next: NextFunction) {
  if (req.method !== "OPTIONS") return next();
  const methods = pathMethods(req.app.router.stack, req.path);
  if (methods.allow.length === 0 || methods.handles("OPTIONS")) return next();
  res.setHeader("Allow", methods.allow.join(", "));
  sendData(req, res, { allow: methods.allow });
}
