/**
 * A small JSON backend for the REST adapter: `GET /<name>` answers the bare JSON list of records
 * named `<name>`, `/fail` answers 500, anything else 404. It counts the requests of each path, and
 * `hold()` keeps every answer back until the release it returns is called, so a test can tell
 * what happens while a backend call is under way without waiting on a clock.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordsServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Requests received per path (without the query). */
  count(path: string): number;
  /** Holds every answer from now on until the returned function is called. */
  hold(): () => void;
  close(): Promise<void>;
}

export async function startRecordsServer(
  collections: Record<string, readonly Record<string, unknown>[]>,
): Promise<RecordsServer> {
  const counts = new Map<string, number>();
  let held: Promise<void> | undefined;
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://records.test").pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const answer = () => {
      const name = path.slice(1);
      const status = path === "/fail" ? 500 : Object.hasOwn(collections, name) ? 200 : 404;
      const body = JSON.stringify(status === 200 ? collections[name] : { detail: "no" });
      res.writeHead(status, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      });
      res.end(body);
    };
    if (held === undefined) answer();
    else void held.then(answer);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    count: (path) => counts.get(path) ?? 0,
    hold() {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
