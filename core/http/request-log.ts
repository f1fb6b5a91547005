/**
 * One structured log line per request: method, path, status, latency and response size. Never
 * the query string, headers or bodies, which may carry secrets or customer rows.
 */
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";

const pathOf = (url: string): string => {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
};

export function requestLog(logger: Logger) {
  // A silent logger would drop every line: no listener per request to make them.
  if (!logger.isLevelEnabled("error")) {
    return (_req: Request, _res: Response, next: NextFunction) => next();
  }
  return (req: Request, res: Response, next: NextFunction) => {
    res.on("finish", () => {
      const latencyMs = Number(process.hrtime.bigint() - req.startedAt) / 1e6;
      const entry = {
        request_id: req.id,
        method: req.method,
        // The whole path: inside a mounted router `req.path` is the part below its mount point.
        path: pathOf(req.originalUrl),
        status: res.statusCode,
        latency_ms: Math.round(latencyMs * 100) / 100,
        response_bytes: Number(res.getHeader("Content-Length") ?? 0),
        key_id: req.principal?.keyId,
      };
      if (res.statusCode >= 500) logger.error(entry, "request");
      else logger.info(entry, "request");
    });
    next();
  };
}
