/**
 * The last middleware: turns anything thrown into the envelope. Body-parser failures become
 * 400/413 with details; anything unknown is logged with its cause and answered 500.
 */
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";
import { sendError } from "./envelope.ts";
import { errors, isServiceError, type ServiceError } from "./errors.ts";

interface BodyParserError {
  type: string;
  limit?: number;
  message: string;
}

const isBodyParserError = (error: unknown): error is BodyParserError =>
  typeof error === "object" &&
  error !== null &&
  typeof (error as { type?: unknown }).type === "string";

/** The router's refusal of a path it cannot decode (`%ZZ`): a URIError marked status 400. */
const isUndecodablePath = (error: unknown): error is URIError =>
  error instanceof URIError && (error as { status?: unknown }).status === 400;

export function toServiceError(error: unknown): ServiceError {
  if (isServiceError(error)) return error;
  if (isUndecodablePath(error)) {
    return errors.invalidRequest(`The path is not valid: ${error.message}`, { field: "path" });
  }
  if (isBodyParserError(error)) {
    switch (error.type) {
      case "entity.too.large":
        return errors.payloadTooLarge(error.limit ?? 0);
      case "entity.parse.failed":
        return errors.invalidRequest("Request body is not valid JSON", {
          field: "body",
          reason: error.message,
        });
      case "encoding.unsupported":
      case "charset.unsupported":
        return errors.invalidRequest("Request body encoding is not supported", { field: "body" });
      case "request.aborted":
        return errors.invalidRequest("Request was aborted", { field: "body" });
    }
  }
  return errors.internal(error);
}

export function errorHandler(logger: Logger) {
  // Express tells an error handler by its four parameters.
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const serviceError = toServiceError(error);
    if (serviceError.status >= 500) {
      logger.error(
        { request_id: req.id, err: serviceError.cause ?? serviceError },
        serviceError.message,
      );
    }
    sendError(req, res, serviceError);
  };
}

/** Answers 404 in the envelope for any route nobody claimed. */
export function notFoundHandler(req: Request, _res: Response, next: NextFunction) {
  next(errors.routeNotFound(req.method, req.path));
}
