/** A small closed-loop load generator: `concurrency` workers send requests for `seconds`. */
import http from "node:http";

export interface LoadResult {
  requests: number;
  /** Requests that failed: not 200, a wrong answer, or no answer at all. */
  errors: number;
  /** The errors by kind: the status code, `wrong answer` or `no answer`. */
  failures: Record<string, number>;
  rps: number;
  p50ms: number;
  p99ms: number;
}

/** One request of a run. */
export interface Call {
  /** Path and query on the target's origin; the target URL's own when left out. */
  path?: string;
  method?: "GET" | "POST";
  headers: Record<string, string>;
  body?: Buffer;
  /** Whether a 200 answer's body is the right one; any 200 is when left out (body not read). */
  expect?: (body: Buffer) => boolean;
}

interface Answer {
  status: number;
  right: boolean;
}

function send(target: URL, call: Call, agent: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers =
      call.body === undefined
        ? call.headers
        : { ...call.headers, "Content-Length": String(call.body.length) };
    const req = http.request(
      call.path === undefined ? target : new URL(call.path, target),
      { agent, method: call.method ?? "GET", headers },
      (res) => {
        const status = res.statusCode ?? 0;
        const expect = call.expect;
        if (expect === undefined || status !== 200) {
          res.resume();
          res.on("end", () => resolve({ status, right: true }));
          return;
        }
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status, right: expect(Buffer.concat(chunks)) }));
      },
    );
    req.on("error", reject);
    req.end(call.body);
  });
}

/** `next` is called per request, so a run can spread over several keys, sites or bodies. */
export async function loadCalls(
  url: string,
  next: () => Call,
  { seconds = 5, concurrency = 32 } = {},
): Promise<LoadResult> {
  const target = new URL(url);
  // A fresh pool per run: no socket left idle by an earlier run, which a server may have closed.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const latencies: number[] = [];
  const failures: Record<string, number> = {};
  let errors = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        const answer = await send(target, next(), agent).catch(() => undefined);
        latencies.push(performance.now() - t0);
        const failure =
          answer === undefined
            ? "no answer"
            : answer.status !== 200
              ? String(answer.status)
              : answer.right
                ? undefined
                : "wrong answer";
        if (failure !== undefined) {
          errors++;
          failures[failure] = (failures[failure] ?? 0) + 1;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(
      (latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 100,
    ) / 100;
  return {
    requests: latencies.length,
    errors,
    failures,
    rps: Math.round(latencies.length / elapsed),
    p50ms: at(0.5),
    p99ms: at(0.99),
  };
}

/** GETs of `url`; `headers` is called per request, so a run can spread over several API keys. */
export function load(
  url: string,
  headers: () => Record<string, string>,
  options: { seconds?: number; concurrency?: number } = {},
): Promise<LoadResult> {
  return loadCalls(url, () => ({ headers: headers() }), options);
}
