/**
 * The response envelope of the API reference: `{success, data | error, meta: {request_id, ts}}` on every
 * answer, error or not.
 */
import type { Request, Response } from "express";
import type { ServiceError } from "../errors.ts";
import { errorHeaders, httpStatus } from "./error-status.ts";

export type Meta = Record<string, unknown>;

const baseMeta = (req: Request) => ({ request_id: req.id, ts: new Date().toISOString() });

/** Sends `data` in a success envelope; `meta` adds fields such as `next_cursor` or `version`. */
export function sendData(
  req: Request,
  res: Response,
  data: unknown,
  options: { status?: number; meta?: Meta } = {},
) {
  res
    .status(options.status ?? 200)
    .json({ success: true, data, meta: { ...baseMeta(req), ...options.meta } });
}

/**
 * The error envelope of a ServiceError: only its user message and details leave the service.
 * Also written where there is no Express response (the HTTP server's clientError).
 */
export function errorEnvelope(error: ServiceError, requestId: string) {
  return {
    success: false,
    error: { code: error.code, message: error.message, details: error.details },
    meta: { request_id: requestId, ts: new Date().toISOString() },
  };
}

/** Sends a ServiceError in the envelope, with its extra headers (Retry-After, Allow). */
export function sendError(req: Request, res: Response, error: ServiceError) {
  for (const [name, value] of Object.entries(errorHeaders(error))) res.setHeader(name, value);
  res.status(httpStatus(error)).json(errorEnvelope(error, req.id));
}
