/** A small closed-loop load generator: `concurrency` workers send requests for `seconds`. */
import http from "node:http";

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50ms: number;
  p99ms: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function get(url: URL, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
  });
}

/** `headers` is called per request, so a run can spread over several API keys. */
export async function load(
  url: string,
  headers: () => Record<string, string>,
  { seconds = 5, concurrency = 32 } = {},
): Promise<LoadResult> {
  const target = new URL(url);
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        const status = await get(target, headers()).catch(() => 0);
        latencies.push(performance.now() - t0);
        if (status !== 200) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(
      (latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 100,
    ) / 100;
  return {
    requests: latencies.length,
    errors,
    rps: Math.round(latencies.length / elapsed),
    p50ms: at(0.5),
    p99ms: at(0.99),
  };
}
