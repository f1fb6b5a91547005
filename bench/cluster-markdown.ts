/**
 * The cluster benchmark's report as Markdown for bench/RESULTS.md: the command and the machine,
 * what ran, every measured run of each workload with one instance and with three, the medians and
 * their ratio, and what the figures show.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { CONFIGS, INSTANCES } from "./cluster-nodes.ts";
import { HAPROXY_BIN } from "./cluster-procs.ts";
import {
  unitsOf,
  wrksOf,
  type ClusterRun,
  type ClusterSummary,
  type Workload,
  type WorkloadSummary,
} from "./cluster-report.ts";

const firstLine = (command: string, args: string[]) => {
  const out = spawnSync(command, args, { encoding: "utf8" });
  return `${out.stdout ?? ""}${out.stderr ?? ""}`.split("\n")[0]?.trim() ?? "?";
};

/** The machine and the versions of everything that ran, in one line. */
export function machine(versions: { postgres: string; redis: string }): string {
  const cpus = os.cpus();
  const debian = fs.existsSync("/etc/debian_version")
    ? `Debian ${fs.readFileSync("/etc/debian_version", "utf8").trim()}, `
    : "";
  const haproxy = /HAProxy version (\S+)/.exec(firstLine(HAPROXY_BIN, ["-v"]))?.[1] ?? "?";
  const wrk = /^wrk (\S+)/.exec(firstLine("wrk", ["-v"]))?.[1] ?? "?";
  return (
    `${debian}${cpus.length} cores (${cpus[0]?.model.trim() ?? "?"}), ` +
    `${Math.round(os.totalmem() / 2 ** 30)} GB, Linux ${os.release()}; Node ${process.version}, ` +
    `PostgreSQL ${versions.postgres}, Redis ${versions.redis}, HAProxy ${haproxy}, wrk ${wrk}`
  );
}

const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
const rule = (columns: number) => row(Array.from({ length: columns }, () => "---"));
const times = (value: number) => `${value.toFixed(2)}×`;

/** HAProxy's requests by server name over the run, in percent: `34/33/33`. */
function shares(run: ClusterRun): string {
  const by = run.proxy?.byServer ?? {};
  const total = Object.values(by).reduce((a, b) => a + b, 0);
  if (total === 0) return "–";
  return ["sv1", "sv2", "sv3"].map((s) => Math.round((100 * (by[s] ?? 0)) / total)).join("/");
}

function runTable(runs: ClusterRun[], workload: Workload): string[] {
  const events = workload === "events";
  const per = events ? "event" : "req";
  const lines = [
    row([
      "round",
      "instances",
      "requests",
      "non-2xx",
      "errors",
      ...(events ? ["events/s"] : []),
      "req/s",
      "p50 ms",
      "p99 ms",
      `CPU ms/${per} instances`,
      `CPU ms/${per} HAProxy`,
      "idle instances CPU ms",
      "sv1/sv2/sv3 %",
      ...(events
        ? ["acknowledged", "stored", "lost", "duplicates", "unanswered"]
        : ["db_query events stored", "lost"]),
    ]),
    rule(events ? 18 : 14),
  ];
  for (const run of runs.filter((r) => r.workload === workload && r.round > 0)) {
    const e = run.events;
    const digits = events ? 4 : 3;
    lines.push(
      row([
        run.round,
        INSTANCES[run.config],
        run.wrk.requests,
        wrksOf(run).reduce((sum, w) => sum + w.status, 0),
        wrksOf(run).reduce((sum, w) => sum + w.errors, 0),
        ...(events ? [e?.events_per_second ?? "–"] : []),
        run.wrk.rps,
        run.wrk.p50Ms.toFixed(2),
        run.wrk.p99Ms.toFixed(2),
        (run.cpu.instances / unitsOf(run)).toFixed(digits),
        (run.cpu.proxy / unitsOf(run)).toFixed(digits),
        Math.round(run.cpu.idle),
        shares(run),
        ...(events
          ? [e?.events_acknowledged, e?.stored, e?.lost, e?.duplicates, e?.unanswered]
          : [run.usage?.stored, run.usage?.lost]
        ).map((v) => v ?? "–"),
      ]),
    );
  }
  return lines;
}

function medianTable(s: WorkloadSummary): string[] {
  const events = s.cpu_per === "event";
  const lines = [
    row([
      "instances",
      ...(events ? ["events/s"] : []),
      "req/s",
      "p50 ms",
      "p99 ms",
      `CPU ms/${events ? "event" : "req"} instances + HAProxy`,
      "non-2xx",
      "errors",
    ]),
    rule(events ? 8 : 7),
  ];
  for (const config of CONFIGS) {
    const c = s[config];
    lines.push(
      row([
        c.instances,
        ...(events ? [c.events_per_second ?? "–"] : []),
        c.rps,
        c.p50_ms.toFixed(2),
        c.p99_ms.toFixed(2),
        (c.instances_cpu_ms + c.proxy_cpu_ms).toFixed(events ? 4 : 3),
        c.non_2xx,
        c.errors,
      ]),
    );
  }
  const r = s.ratio;
  lines.push(
    "",
    `three ÷ one: req/s **${times(r.rps)}**, p50 ${times(r.p50)}, p99 ${times(r.p99)}, ` +
      `CPU per ${s.cpu_per} (instances + HAProxy) ${times(r.cpu)}.`,
  );
  return lines;
}

/** What the ratios show. */
function reading(s: ClusterSummary): string {
  const one = (name: string, w: WorkloadSummary) => {
    const change = Math.round(Math.abs(w.ratio.rps - 1) * 100);
    const rate =
      change === 0
        ? "as many requests a second as"
        : `${change}% ${w.ratio.rps < 1 ? "fewer" : "more"} requests a second than`;
    return (
      `${name}, three instances answered ${rate} one, at ` +
      `${times(w.ratio.cpu)} the CPU per ${w.cpu_per}`
    );
  };
  const ahead = s.query.ratio.rps > 1 || s.events.ratio.rps > 1;
  return (
    `${one("On the signed query path", s.query)}; ${one("in event ingestion", s.events)}. ` +
    `All of it ran on the same ${os.cpus().length} cores, shared with wrk, HAProxy, PostgreSQL, ` +
    "Redis and the query path's backend, so the second and third instance bring no capacity: " +
    "what the comparison shows is the overhead of running the cluster path on one machine " +
    "(more processes, each with its own caches, connections, event batches, job processor and " +
    "JIT warm-up, taking turns on the same cores), not a speed-up." +
    (ahead
      ? " Where three comes out ahead, it is because a single Node process runs its JavaScript " +
        "on one core and leaves part of the other idle, not because the cluster scales."
      : "") +
    " Instances on machines of their own would each bring their own cores."
  );
}

export function clusterMarkdown(s: ClusterSummary, runs: ClusterRun[]): string {
  return [
    `Command: \`${s.command}\` (${s.minutes} minutes in all), at one-minute load average ` +
      `${s.load_average.before.toFixed(2)} before and ${s.load_average.after.toFixed(2)} after. ` +
      `${s.machine}.`,
    "",
    "HAProxy on `deploy/haproxy.cfg` as it is, started afresh for each run, in front of " +
      "`sitevoice serve` instances on one fresh PostgreSQL database and one Redis database " +
      "(jobs on, `LOG_LEVEL=warn`, `NODE_ENV=production`, `SITEVOICE_DRAIN_MS=0`). **1**: " +
      "SITEVOICE_1–3 all name sv1 (sv2 and sv3 stay up without requests, still hearing each " +
      "batch of stored usage events announced over Redis: their CPU is the idle column); " +
      "**3**: sv1, sv2, sv3, round-robin. Each round: 1 (query, events), then 3 (query, " +
      `events). \`wrk -t1 -c${s.concurrency} --latency\` from its own process, ` +
      `${s.seconds} s a run. Query: after ${s.warmup_seconds} s of warm-up per configuration, ` +
      `${s.query_sites_per_run} sites of the run's own × 5 signed searches (one session a ` +
      "site; the REST backend replays the DRF stand-in's answers from its own process); every " +
      "answer checked. " +
      `Events: each run after ${s.warmup_seconds} s of warm-up of its own, ` +
      `${s.events_per_request} events a request, every request unique and signed, over ` +
      `${s.event_sites_per_run} sites of the run's own; every acknowledged event looked for in ` +
      "the database once the instances stopped. CPU: each process's own (/proc) over the " +
      "measured run, per request (query) or acknowledged event (events); sv1/sv2/sv3: HAProxy's " +
      "log, by server name (with 1 instance all three names are sv1). The sites' first crawls " +
      "were marked done before the instances started.",
    "",
    "### Signed query (`POST /v1/:siteId/query`) through HAProxy",
    "",
    ...runTable(runs, "query"),
    "",
    "db_query events: the usage event each answered query records (not awaited by the " +
      "answer), counted in the database once the instances stopped; lost: answered queries " +
      "without theirs.",
    "",
    "Medians over the rounds (non-2xx and errors: every run, warm-ups included):",
    "",
    ...medianTable(s.query),
    "",
    "### Signed event ingestion (`POST /v1/:siteId/analytics/event`) through HAProxy",
    "",
    ...runTable(runs, "events"),
    "",
    "non-2xx and errors include the run's warm-up; acknowledged, stored, lost, duplicates and " +
      "unanswered (stored, but sent as wrk stopped and never answered) cover warm-up and run.",
    "",
    "Medians over the rounds:",
    "",
    ...medianTable(s.events),
    "",
    reading(s),
    ...(s.logged.length === 0
      ? []
      : ["", "Logged by the instances at warn or above:", "", ...s.logged.map((l) => `- ${l}`)]),
  ].join("\n");
}
