/**
 * A real HTTP receiver of webhooks on 127.0.0.1: records each request (raw body, headers, when it
 * arrived) and answers as the test says (a status, headers, a delay, or no answer at all).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request's headers arrived. */
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Milliseconds before answering. */
  delayMs?: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** The parsed bodies, in arrival order. */
  payloads(): Record<string, unknown>[];
  /** How the next request is answered; `(n)` is its 0-based index. */
  answer: (n: number, request: Received) => Answer;
  /** Resolves once `count` requests have arrived (polls). */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(
  answer: (n: number, request: Received) => Answer = () => ({ status: 200 }),
  port = 0,
): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at };
      const n = received.push(request) - 1;
      const reply = receiver.answer(n, request);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status, reply.headers).end(reply.body ?? "");
      };
      if (reply.delayMs === undefined) send();
      else setTimeout(send, reply.delayMs);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const bound = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${bound}/hooks`,
    port: bound,
    received,
    answer,
    payloads: () => received.map((r) => JSON.parse(r.body) as Record<string, unknown>),
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) {
          throw new Error(`the receiver got ${received.length} requests, not ${count}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
