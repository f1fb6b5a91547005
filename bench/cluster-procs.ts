/**
 * The cluster benchmark's processes: `sitevoice serve` instances (the real CLI, bin/sitevoice.js)
 * and HAProxy on the real deploy/haproxy.cfg, whose addresses come from the environment
 * (SITEVOICE_BIND, SITEVOICE_1 … SITEVOICE_3). Each writes its output to a file in the run's temp
 * dir (HAProxy's is its request log, one line a request, read after it stops), and is tracked by
 * cleanup.ts; started through `setpriv --pdeathsig KILL` where util-linux has it, so that even a
 * harness killed with SIGKILL leaves none behind. Their CPU time is read from /proc.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { track } from "./cleanup.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const CLI = path.join(ROOT, "bin", "sitevoice.js");
export const HAPROXY_CFG = path.join(ROOT, "deploy", "haproxy.cfg");
export const HAPROXY_BIN = process.env.BENCH_HAPROXY ?? "/usr/sbin/haproxy";
const SETPRIV = "/usr/bin/setpriv";

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU time of process `pid` so far, in ms (all its threads); 0 once it is gone. */
export function cpuMsOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // After the command name in parentheses: state is field 3, utime 14 and stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** A process of the cluster, with its output going to `logFile`. */
export interface Proc {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** Resolves with how it ended: `code 0`, `signal SIGKILL`, … */
  exited: Promise<string>;
}

function spawnLogged(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
): Proc {
  const fd = fs.openSync(logFile, "a");
  const leashed = fs.existsSync(SETPRIV);
  const child = track(
    spawn(
      leashed ? SETPRIV : command,
      leashed ? ["--pdeathsig", "KILL", "--", command, ...args] : args,
      {
        env,
        stdio: ["ignore", fd, fd],
      },
    ),
  );
  fs.closeSync(fd);
  const exited = new Promise<string>((resolve) => {
    child.once("exit", (code, signal) =>
      resolve(signal === null ? `code ${code}` : `signal ${signal}`),
    );
    child.once("error", (error) => resolve(`not started: ${error.message}`));
  });
  return { name, child, logFile, exited };
}

export const running = (proc: Proc | undefined): boolean =>
  proc !== undefined && proc.child.exitCode === null && proc.child.signalCode === null;

/** The last `lines` lines of `proc`'s output, for an error's message. */
export function tail(proc: Proc, lines = 30): string {
  try {
    const text = fs.readFileSync(proc.logFile, "utf8").trimEnd().split("\n");
    return text.slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/** A knex database error (`<statement> - <error>`), shortened: the statement's start, the error. */
function shortError(message: string): string {
  const at = message.lastIndexOf(" - ");
  if (at < 0 || at < 80) return message;
  return `${message.slice(0, 60)}… - ${message.slice(at + 3)}`;
}

/**
 * What `proc` logged at warn or above (pino's JSON lines, level 40 and up), counted by message:
 * `3× redis error`; empty when nothing.
 */
export function warnings(proc: Proc): string[] {
  const counts = new Map<string, number>();
  let text = "";
  try {
    text = fs.readFileSync(proc.logFile, "utf8");
  } catch {
    return [];
  }
  for (const line of text.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; err?: unknown };
      if ((entry.level ?? 0) < 40) continue;
      const err = (entry.err as { message?: string } | undefined)?.message ?? entry.err;
      const what = `${entry.msg ?? "?"}${err === undefined ? "" : ` (${shortError(String(err))})`}`;
      counts.set(what, (counts.get(what) ?? 0) + 1);
    } catch {
      // Not a log line.
    }
  }
  return [...counts].map(([what, n]) => `${n}× ${what}`);
}

/** Signals `proc` and waits for its end; SIGKILL after `graceMs`. How it ended. */
export async function stopProc(
  proc: Proc | undefined,
  signal: NodeJS.Signals,
  graceMs: number,
): Promise<string | undefined> {
  if (proc === undefined) return undefined;
  if (running(proc)) proc.child.kill(signal);
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), graceMs);
  const how = await proc.exited;
  clearTimeout(timer);
  return how;
}

/** GET /v1/health/ready's status at `origin`, or 0 when nothing answers within 2 s. */
export async function readyStatus(origin: string): Promise<number> {
  try {
    const res = await fetch(`${origin}/v1/health/ready`, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** Waits until `origin` answers ready; rejects when `proc` ends first or after `ms`. */
async function untilReady(proc: Proc, origin: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await readyStatus(origin)) !== 200) {
    if (!running(proc)) throw new Error(`${proc.name} exited:\n${tail(proc)}`);
    if (Date.now() > deadline)
      throw new Error(`${proc.name} not ready in ${ms} ms:\n${tail(proc)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** What every instance shares: the database, Redis, the master key, HAProxy's address. */
export interface InstanceSettings {
  databaseUrl: string;
  redisUrl: string;
  masterKey: string;
  publicBaseUrl: string;
  dir: string;
}

export interface Instance extends Proc {
  n: number;
  port: number;
  origin: string;
}

const SERVICE_VARIABLES =
  /^(DATABASE_URL|REDIS_URL|SITEVOICE_|PORT$|HOST$|PUBLIC_BASE_URL$|TRUSTED_PROXIES$|LOG_LEVEL$)/;

/** The environment without anything of the service's own that would leak into an instance. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !SERVICE_VARIABLES.test(k)),
  );
}

/** `sitevoice serve` as instance `n` on `port`; resolves once it answers ready. */
export async function startInstance(
  n: number,
  port: number,
  s: InstanceSettings,
): Promise<Instance> {
  const env: NodeJS.ProcessEnv = {
    ...cleanEnv(),
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_URL: s.databaseUrl,
    REDIS_URL: s.redisUrl,
    SITEVOICE_MASTER_KEY: s.masterKey,
    SITEVOICE_DATA_DIR: path.join(s.dir, `data-${n}`),
    PUBLIC_BASE_URL: s.publicBaseUrl,
    TRUSTED_PROXIES: "loopback",
    LOG_LEVEL: "warn",
    SITEVOICE_SITES_DIR: "",
    SITEVOICE_DEMO: "off",
    SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
    SITEVOICE_JOBS: "on",
    SITEVOICE_DRAIN_MS: "0",
    NODE_ENV: "production",
  };
  const name = `sv${n}`;
  const proc = spawnLogged(
    name,
    process.execPath,
    [CLI, "serve"],
    env,
    path.join(s.dir, `${name}.log`),
  );
  const instance = { ...proc, n, port, origin: `http://127.0.0.1:${port}` };
  await untilReady(proc, instance.origin, 120_000);
  return instance;
}

/** HAProxy on `bindPort`, sending to `servers` (SITEVOICE_1 … 3, host:port each). */
export async function startProxy(
  bindPort: number,
  servers: [string, string, string],
  logFile: string,
): Promise<Proc> {
  const env: NodeJS.ProcessEnv = {
    ...cleanEnv(),
    SITEVOICE_BIND: `127.0.0.1:${bindPort}`,
    SITEVOICE_1: servers[0],
    SITEVOICE_2: servers[1],
    SITEVOICE_3: servers[2],
  };
  const proc = spawnLogged("haproxy", HAPROXY_BIN, ["-db", "-f", HAPROXY_CFG], env, logFile);
  await untilReady(proc, `http://127.0.0.1:${bindPort}`, 15_000);
  return proc;
}

/** What HAProxy's request log says of one proxy's life. */
export interface ProxyLog {
  /** Requests logged, by server (`sv1`, `sv2`, `sv3`, a `-degraded` backup, or `<NOSRV>`). */
  byServer: Record<string, number>;
  /** Answers of 500 and above, whoever made them. */
  status5xx: number;
  /** The longest request, from its first byte to the answer's last (HAProxy's Ta), in ms. */
  slowestMs: number;
  /** "Server instances/… is DOWN" lines: a server left the pool. */
  down: string[];
}

/** Reads `logFile`, HAProxy's `option httplog` lines and its server state changes. */
export function readProxyLog(logFile: string): ProxyLog {
  const log: ProxyLog = { byServer: {}, status5xx: 0, slowestMs: 0, down: [] };
  const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8") : "";
  // `<client> [<date>] sitevoice instances/sv1 0/0/0/5/5 200 512 - - ---- …`: TR/Tw/Tc/Tr/Ta.
  const request = / sitevoice instances\/(\S+) \S+\/(\+?\d+) (\d{3}) /;
  // Each change is printed twice: as a `[WARNING]` alert and as a log line.
  const down = new Set<string>();
  for (const line of text.split("\n")) {
    const match = request.exec(line);
    if (match !== null) {
      const server = match[1] as string;
      log.byServer[server] = (log.byServer[server] ?? 0) + 1;
      log.slowestMs = Math.max(log.slowestMs, Number((match[2] as string).replace("+", "")));
      if (Number(match[3]) >= 500) log.status5xx++;
      continue;
    }
    const change = /Server instances\/\S+ is DOWN.*/.exec(line);
    if (change !== null) down.add(change[0].trim());
  }
  log.down = [...down];
  return log;
}
