/**
 * `npm run bench -- soak [--json]`: the signed query path (`POST /v1/:siteId/query`, prepared
 * as the query benchmark prepares its service side: query.ts) under a steady load for minutes,
 * with the service's memory recorded, to show that nothing it keeps per site or per session
 * grows without bound. The service alone: no floors, no ratios.
 *
 * The load is a small open-loop generator in Node, in a process of its own (soak-load.ts), not
 * wrk: Debian's wrk has no fixed-rate mode (that is wrk2), and its Lua `delay()` only pauses
 * each connection between its own requests, so the rate it gives is connections ÷ (delay +
 * latency), which moves with the latency being measured, and a slow answer holds back the
 * requests behind it. The Node generator starts request n at t0 + n / rate whatever came back,
 * counts a start skipped for its in-flight cap as an error, and measures latency from when each
 * request was due.
 *
 * The service is forked with `--expose-gc`. At the start of the measured window, at the end of
 * every minute and at the end, it runs `gc()` twice and reports `process.memoryUsage()` over IPC
 * (sides.ts). The window is the one CPU time per request is measured over; the per-minute
 * samples' collections are in it (the first and last are not; the table shows how long each
 * took). The verdict is "flat" when heapUsed grew less than 5 MB and less than 10% over the
 * window (soak-report.ts).
 * A run with any error (not 200, wrong body, socket error or timeout, or a start missed in the
 * window; in the warm-up, whose rate is not recorded, the wrong answers only) is not a result
 * and exits 1.
 *
 * Settings, from the environment: BENCH_SOAK_RATE (500) requests a second, BENCH_SOAK_SECONDS
 * (600) measured, BENCH_WARMUP_SECONDS (30) at the same rate before, not recorded, BENCH_SITES
 * (400) the load rotates over, BENCH_CONCURRENCY (32) keep-alive connections at most,
 * BENCH_SOAK_MAX_IN_FLIGHT (one second of requests) the cap. Every site takes at most 300
 * queries a minute and 30 a second, so the sites must take the rate with room to spare.
 */
import { fork } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { installCleanup, makeTempDir, removeTempDir, track } from "./cleanup.ts";
import { prepareQueryService } from "./query.ts";
import type { Sample } from "./sides.ts";
import type { FromLoad, IntervalStats, LoadConfig, ToLoad } from "./soak-load.ts";
import {
  soakExamples,
  soakMarkdown,
  soakSummary,
  type SoakRun,
  type SoakSettings,
} from "./soak-report.ts";

const MINUTE_SECONDS = 60;
/** Of each site's 300 queries a minute, the load may use at most this many. */
const SITE_MINUTE_BUDGET = 240;

function usage(message: string): never {
  console.error(message);
  process.exit(2);
}

function setting(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  const value = raw === undefined || raw.trim() === "" ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min) usage(`${name} must be an integer ≥ ${min}: ${raw}`);
  return value;
}

/** The load process, configured; `run` resolves with its intervals and whole-run latency. */
async function startLoad(config: LoadConfig) {
  const child = track(
    fork(fileURLToPath(new URL("./soak-load.ts", import.meta.url)), [], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const died = exited.then(() => {
    throw new Error("the load process exited");
  });
  died.catch(() => {});
  const next = <T extends FromLoad["type"]>(type: T, onInterval?: (s: IntervalStats) => void) =>
    Promise.race([
      died,
      new Promise<Extract<FromLoad, { type: T }>>((resolve, reject) => {
        const onMessage = (message: FromLoad) => {
          if (message.type === "interval") onInterval?.(message.stats);
          if (message.type !== type && message.type !== "failed") return;
          child.off("message", onMessage);
          if (message.type === "failed") reject(new Error(`the load failed: ${message.message}`));
          else resolve(message as Extract<FromLoad, { type: T }>);
        };
        child.on("message", onMessage);
      }),
    ]);
  const send = (message: ToLoad) => child.send(message);
  const ready = next("ready");
  send({ type: "config", ...config });
  await ready;
  return {
    async run(seconds: number, onInterval: (stats: IntervalStats) => void) {
      const done = next("done", onInterval);
      send({ type: "run", seconds, intervalSeconds: MINUTE_SECONDS });
      return done;
    },
    async close() {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}

/** `args`: run.ts's command line, `soak` among them. */
export async function runSoak(args: string[]): Promise<void> {
  const json = args.includes("--json");
  const extra = args.filter((arg) => arg !== "--json" && arg !== "soak");
  if (extra.length > 0) usage(`the soak runs alone; unexpected ${extra.join(" ")}`);
  const rate = setting("BENCH_SOAK_RATE", 500);
  const settings: SoakSettings = {
    rate,
    seconds: setting("BENCH_SOAK_SECONDS", 600),
    warmupSeconds: setting("BENCH_WARMUP_SECONDS", 30, 0),
    siteCount: setting("BENCH_SITES", 400),
    connections: setting("BENCH_CONCURRENCY", 32),
    maxInFlight: setting("BENCH_SOAK_MAX_IN_FLIGHT", rate),
  };
  if ((rate * MINUTE_SECONDS) / settings.siteCount > SITE_MINUTE_BUDGET) {
    usage(
      `BENCH_SITES=${settings.siteCount} is too few for ${rate} req/s: each site takes at most ` +
        `300 queries a minute; use at least ${Math.ceil((rate * 60) / SITE_MINUTE_BUDGET)}`,
    );
  }
  installCleanup();
  const loadBefore = os.loadavg()[0] as number;
  const dir = makeTempDir();
  const prepared = await prepareQueryService(settings, dir, ["--expose-gc"]);
  const { service } = prepared;
  let run: SoakRun;
  try {
    const load = await startLoad({
      origin: service.origin,
      requests: prepared.load.requests,
      expected: prepared.expected,
      rate,
      maxInFlight: settings.maxInFlight,
      connections: settings.connections,
    });
    const warmup: IntervalStats[] = [];
    if (settings.warmupSeconds > 0) await load.run(settings.warmupSeconds, (s) => warmup.push(s));

    const check = (sample: Sample) => {
      if (!sample.gc) throw new Error("the service runs without --expose-gc: no gc() to sample");
      return sample;
    };
    const before = check(await service.sample());
    await service.start();
    const minutes: { stats: IntervalStats; sample?: Promise<Sample> }[] = [];
    const count = Math.ceil(settings.seconds / MINUTE_SECONDS);
    const { p50Ms, p99Ms } = await load.run(settings.seconds, (stats) => {
      // Every minute but the last is sampled as it ends; the last one after the window closes.
      minutes.push({ stats, ...(minutes.length < count - 1 && { sample: service.sample() }) });
    });
    const window = await service.stop();
    const after = check(await service.sample());
    await load.close();
    const sampled = await Promise.all(
      minutes.map(async (m) => ({ stats: m.stats, sample: (await m.sample) ?? after })),
    );
    run = {
      ...{ settings, warmup, before, minutes: sampled, after, window, p50Ms, p99Ms },
      load: { before: loadBefore, after: os.loadavg()[0] as number },
    };
  } finally {
    await prepared.close();
  }
  removeTempDir(dir);

  const summary = soakSummary(run);
  console.log("\n## soak\n");
  console.log(soakMarkdown(run, summary));
  if (!summary.result) {
    for (const example of soakExamples(run)) console.log(`ERROR e.g.: ${example}`);
    console.log(
      `ERRORS: ${summary.errors} in the window, ${summary.warmup_errors} in the warm-up. ` +
        `A run with errors is not a result: this soak is not one.`,
    );
  }
  if (json) console.log(JSON.stringify(summary));
  process.exitCode = summary.result ? 0 : 1;
}
