import type { NextFunction, Request, Response } from "express";
import { newId } from "../store/ids.ts";
import type { Principal } from "../auth/principal.ts";

declare module "express-serve-static-core" {
  interface Request {
    /** Set first thing for every request; echoed as X-Request-Id and meta.request_id. */
    id: string;
    /** Monotonic start time, for the request log's latency. */
    startedAt: bigint;
    /** Who is calling, once an auth middleware has run. */
    principal?: Principal;
  }
}

/** Gives every request an id before anything else can fail. */
export function requestContext(req: Request, res: Response, next: NextFunction) {
  req.id = newId("req");
  req.startedAt = process.hrtime.bigint();
  res.setHeader("X-Request-Id", req.id);
  next();
}
