/**
 * The last middleware: turns anything thrown into the envelope. Errors of reading the request
 * (body parsers, the router) become 4xx by their status and type, so a parser added later is
 * covered too; a database that cannot be reached for now is 503 with Retry-After (a client's
 * retry hides a restart); anything else unknown is logged with its cause and answered 500. No parser's, zlib's
 * or router's own message is ever sent: they describe our internals, not the caller's mistake.
 */
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";
import { sendError } from "./envelope.ts";
import { httpStatus } from "./error-status.ts";
import { errors, isServiceError, type ServiceError } from "../errors.ts";
import { pathMethods } from "./path-methods.ts";
import { isStoreUnavailable } from "../store/store-errors.ts";

/**
 * What body-parser and raw-body throw (http-errors): a 4xx status, `expose: true` and usually a
 * `type`. A body that fails to decompress comes as zlib's own error marked status 400, no type.
 * `expose` keeps out errors of other libraries that merely carry an upstream `status`.
 */
interface ClientHttpError {
  status: number;
  type?: string;
  limit?: number;
  encoding?: string;
  charset?: string;
}

const isClientHttpError = (error: unknown): error is ClientHttpError => {
  if (!(error instanceof Error)) return false;
  const { status, expose } = error as { status?: unknown; expose?: unknown };
  return expose === true && typeof status === "number" && status >= 400 && status < 500;
};

/** The router's refusal of a path it cannot decode (`%ZZ`): a URIError marked status 400. */
const isUndecodablePath = (error: unknown): error is URIError =>
  error instanceof URIError && (error as { status?: unknown }).status === 400;

/** The request's Content-Encoding as body-parser reads it; undefined when there is none. */
function contentEncoding(req: Pick<Request, "headers"> | undefined): string | undefined {
  const encoding = req?.headers["content-encoding"]?.trim().toLowerCase();
  return encoding === undefined || encoding === "" || encoding === "identity"
    ? undefined
    : encoding;
}

/** A 4xx from reading the request, in the registry's words. */
function fromClientHttpError(
  error: ClientHttpError,
  req: Pick<Request, "headers"> | undefined,
): ServiceError {
  if (error.type === "entity.too.large" || error.status === 413) {
    return errors.payloadTooLarge(error.limit ?? 0);
  }
  if (error.type === "charset.unsupported") {
    const charset = error.charset ?? "given";
    return errors.unsupportedMediaType(`The ${charset} charset is not supported; send UTF-8`, {
      field: "content-type",
      charset: error.charset,
    });
  }
  if (error.type === "encoding.unsupported" || error.status === 415) {
    const encoding = error.encoding ?? contentEncoding(req);
    return errors.unsupportedMediaType(
      `Content-Encoding ${encoding ?? "of the body"} is not supported; send the body as is, or as gzip, deflate or br`,
      { field: "content-encoding", encoding },
    );
  }
  if (error.type === "entity.parse.failed") {
    return errors.invalidRequest("The request body is not valid JSON", { field: "body" });
  }
  if (error.type === "request.aborted") {
    return errors.invalidRequest("The request was aborted before its body arrived", {
      field: "body",
    });
  }
  const encoding = contentEncoding(req);
  if (error.type === undefined && encoding !== undefined) {
    // The decompressor failed: the bytes are not what the Content-Encoding says.
    return errors.invalidRequest(
      `The request body could not be decoded as ${encoding} (its Content-Encoding)`,
      { field: "body", encoding },
    );
  }
  return errors.invalidRequest("The request body could not be read", { field: "body" });
}

/** Any thrown value as the ServiceError to answer; `req` names the body's Content-Encoding. */
export function toServiceError(error: unknown, req?: Pick<Request, "headers">): ServiceError {
  if (isServiceError(error)) return error;
  if (isUndecodablePath(error)) {
    return errors.invalidRequest("The path holds a %-escape that does not decode", {
      field: "path",
    });
  }
  if (isClientHttpError(error)) return fromClientHttpError(error, req);
  if (isStoreUnavailable(error)) return errors.storeUnavailable(error);
  return errors.internal(error);
}

/**
 * What is logged of a parser's or the router's error: its name, type, status and code, and its
 * message unless the body failed to parse, since V8 quotes the body in that message. Never the
 * error itself: body-parser attaches the raw body (`body`), which pino's err serializer copies.
 */
function readingFailure(error: unknown) {
  if (!(error instanceof Error)) return { name: typeof error };
  const { type, status, code } = error as { type?: unknown; status?: unknown; code?: unknown };
  return {
    name: error.name,
    type,
    status,
    code,
    message: type === "entity.parse.failed" ? undefined : error.message,
  };
}

export function errorHandler(logger: Logger) {
  // Express tells an error handler by its four parameters.
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const serviceError = toServiceError(error, req);
    if (httpStatus(serviceError) >= 500) {
      logger.error(
        { request_id: req.id, err: serviceError.cause ?? serviceError },
        serviceError.message,
      );
    } else if (serviceError !== error) {
      // What the parser or the router refused stays here, for whoever debugs: its kind only.
      logger.debug({ request_id: req.id, cause: readingFailure(error) }, serviceError.message);
    }
    sendError(req, res, serviceError);
  };
}

/**
 * Answers a request no route took: 405 with `Allow` when routes exist on the path for other
 * methods, else 404.
 */
export function notFoundHandler(req: Request, _res: Response, next: NextFunction) {
  const methods = pathMethods(req.app.router.stack, req.path);
  if (methods.allow.length > 0 && !methods.handles(req.method)) {
    next(errors.methodNotAllowed(req.method, req.path, methods.allow));
    return;
  }
  next(errors.routeNotFound(req.method, req.path));
}
