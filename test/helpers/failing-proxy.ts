/**
 * A reverse proxy in front of a local site that answers the paths told to fail with an error
 * status of their own (a 500, a 503) and passes every other request through as it came, headers
 * included (its answers' bodies name the proxy's origin for the site's): a site whose page breaks
 * for a while.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FailingProxy {
  origin: string;
  /** Host and port: the site's domain. */
  domain: string;
  /** From now on `path` answers `status` (with a short text body). */
  fail(path: string, status: number): void;
  /** `path` is passed through again. */
  heal(path: string): void;
  close(): Promise<void>;
}

export async function startFailingProxy(target: string): Promise<FailingProxy> {
  const upstream = new URL(target);
  const failing = new Map<string, number>();
  let origin = "";
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://proxy").pathname;
    const status = failing.get(path);
    if (status !== undefined) {
      res.writeHead(status, { "content-type": "text/plain" }).end(`failing with ${status}`);
      return;
    }
    const forwarded = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        // The site's own URLs (its sitemap's, robots.txt's) name the proxy instead.
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          const body = Buffer.from(
            Buffer.concat(chunks).toString("utf8").replaceAll(upstream.origin, origin),
          );
          const { "transfer-encoding": _chunked, ...headers } = answer.headers;
          headers["content-length"] = String(body.length);
          res.writeHead(answer.statusCode ?? 502, headers).end(body);
        });
      },
    );
    forwarded.on("error", () => res.writeHead(502).end());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    domain: `127.0.0.1:${port}`,
    fail: (path, status) => void failing.set(path, status),
    heal: (path) => void failing.delete(path),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
