/**
 * The two floors a benchmark measures the service against, around ONE work function, so that
 * only the framework differs between them:
 *
 * - bare: `node:http`, the route matched by one regular expression, the body read by hand,
 *   `JSON.stringify` out;
 * - express: a minimal Express 5 app with the service's two app settings (no ETag, no
 *   X-Powered-By), `express.raw` on the route (as the service's widget routes read their bodies)
 *   and `res.json` out.
 */
import express, { type Request, type Response } from "express";
import http from "node:http";

/** The one route a floor serves, in Express's syntax (`/v1/:siteId/query`). */
export interface Route {
  method: "GET" | "POST";
  path: string;
}

/** What the work answers: the status, extra headers, and the JSON body. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** The work of one request: the route's parameters, the request headers and the raw body. */
export type Work = (
  params: Record<string, string>,
  headers: http.IncomingHttpHeaders,
  body: Buffer,
) => Promise<Answer>;

/** The service's limit on widget bodies (core/http/body-parsers.ts). */
const BODY_LIMIT = 64 * 1024;

const FAILED: Answer = { status: 500, body: { success: false } };
const NOT_FOUND: Answer = { status: 404, body: { success: false } };

function bare(route: Route, work: Work): http.Server {
  const pattern = new RegExp(`^${route.path.replace(/:(\w+)/g, "(?<$1>[^/?]+)")}$`);
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const params = req.method === route.method ? pattern.exec(req.url ?? "")?.groups : undefined;
      const answer =
        params === undefined
          ? Promise.resolve(NOT_FOUND)
          : work({ ...params }, req.headers, Buffer.concat(chunks)).catch(() => FAILED);
      void answer.then(({ status, headers, body }) => {
        res.writeHead(status, { ...headers, "Content-Type": "application/json; charset=utf-8" });
        res.end(JSON.stringify(body));
      });
    });
  });
}

function expressApp(route: Route, work: Work): http.Server {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  const raw = express.raw({ type: () => true, limit: BODY_LIMIT });
  // Express 5 passes a rejected promise on to its default error handler (a 500).
  const handler = async (req: Request, res: Response) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const answer = await work(req.params as Record<string, string>, req.headers, body);
    res
      .status(answer.status)
      .set(answer.headers ?? {})
      .json(answer.body);
  };
  if (route.method === "GET") app.get(route.path, raw, handler);
  else app.post(route.path, raw, handler);
  return http.createServer(app);
}

/** The floor `name` serving `work` on `route`, listening on 127.0.0.1 (any port). */
export async function listenFloor(
  name: "bare" | "express",
  route: Route,
  work: Work,
): Promise<http.Server> {
  const server = name === "bare" ? bare(route, work) : expressApp(route, work);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/** Closes `server` once its (keep-alive) connections are gone. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
