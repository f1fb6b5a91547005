/**
 * A backend that redirects, for tests of where an adapter's credentials go: two servers on two
 * ports of 127.0.0.1 (two origins of one host). `first` answers every request with a redirect,
 * of the status the test sets, to the same path and query under `/landed` on the server it names;
 * a request to `/landed/…` on either server gets `answer`. Both record every request they get.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordingServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Every request received, oldest first: its path and query, and its headers. */
  requests: { url: string; headers: http.IncomingHttpHeaders }[];
}

export interface RedirectingBackend {
  first: RecordingServer;
  second: RecordingServer;
  /** What `first` answers: a redirect with `status` to `to`. */
  redirect: { status: number; to: "first" | "second" };
  close(): Promise<void>;
}

export async function startRedirectingBackend(
  answer: http.RequestListener,
): Promise<RedirectingBackend> {
  const backend = { redirect: { status: 302, to: "second" } } as RedirectingBackend;
  const start = async (redirects: boolean) => {
    const requests: RecordingServer["requests"] = [];
    const server = http.createServer((req, res) => {
      requests.push({ url: req.url ?? "/", headers: req.headers });
      if (req.url?.startsWith("/landed/") || !redirects) {
        answer(req, res);
        return;
      }
      const { status, to } = backend.redirect;
      res.writeHead(status, { location: `${backend[to].origin}/landed${req.url}` });
      res.end();
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    return { server, recording: { origin: `http://127.0.0.1:${port}`, requests } };
  };
  const first = await start(true);
  const second = await start(false);
  backend.first = first.recording;
  backend.second = second.recording;
  backend.close = async () => {
    for (const { server } of [first, second]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  };
  return backend;
}
