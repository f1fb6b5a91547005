/**
 * The three sides of a benchmark, each an HTTP server in its own child process (`node --import
 * tsx <benchmark>-side.ts <side>`), and the IPC between them and the harness:
 *
 *   harness → side: {type: "config", config}   side → harness: {type: "ready", port, fixture}
 *   harness → side: {type: "start"}            side → harness: {type: "started"}
 *   harness → side: {type: "stop"}             side → harness: {type: "stopped", cpuMs, answered}
 *   harness → side: {type: "sample"}           side → harness: {type: "sampled", gc, memory, …}
 *
 * Between start and stop the side counts the responses it finished and measures its own CPU time
 * (`process.cpuUsage`, user + system), so CPU per request covers the side's process alone, not
 * wrk's nor the backend's. A sample (for the soak, soak.ts) runs `gc()` twice when the side was
 * forked with `--expose-gc`, then reads `process.memoryUsage()` and the window's counts so far.
 * A side exits once the harness disconnects (or dies), after closing its server; a failed setup
 * is reported as {type: "failed", message} and exits 1.
 */
import { fork, type ChildProcess } from "node:child_process";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { track } from "./cleanup.ts";

/** In the order of every round. */
export const SIDE_NAMES = ["bare", "express", "service"] as const;
export type SideName = (typeof SIDE_NAMES)[number];

/** What a side measured between start and stop. */
export interface Window {
  cpuMs: number;
  /** Responses the side finished in the window, to check against wrk's count. */
  answered: number;
}

/** The side's memory after full collections, and its window so far. */
export interface Sample extends Window {
  /** Whether `gc()` ran: false unless the side was forked with `--expose-gc`. */
  gc: boolean;
  /** How long the two collections took (the side answers nothing meanwhile). */
  gcMs: number;
  memory: NodeJS.MemoryUsage;
}

type ToSide =
  { type: "config"; config: unknown } | { type: "start" } | { type: "stop" } | { type: "sample" };
type FromSide =
  | { type: "ready"; port: number; fixture: unknown }
  | { type: "started" }
  | ({ type: "stopped" } & Window)
  | ({ type: "sampled" } & Sample)
  | { type: "failed"; message: string };

// ---- In the harness -------------------------------------------------------------------------

export interface Side<Fixture = unknown> {
  name: SideName;
  /** Where wrk sends the load: `http://127.0.0.1:<port>`. */
  origin: string;
  /** What the side's setup made for the harness (the service's sites, sessions, keys). */
  fixture: Fixture;
  start(): Promise<void>;
  stop(): Promise<Window>;
  sample(): Promise<Sample>;
  /** Disconnects and waits for the side to close its server and exit. */
  close(): Promise<void>;
}

/** How long a side may take to close (the service flushes its events) before it is killed. */
const CLOSE_MS = 15_000;

/** The next message of `type` from `child`; rejects if it reports a failure or exits first. */
function reply<T extends FromSide["type"]>(
  child: ChildProcess,
  name: SideName,
  type: T,
): Promise<Extract<FromSide, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: FromSide) => {
      if (message.type !== type && message.type !== "failed") return;
      off();
      if (message.type === "failed")
        reject(new Error(`the ${name} side failed: ${message.message}`));
      else resolve(message as Extract<FromSide, { type: T }>);
    };
    const onExit = (code: number | null, signal: string | null) => {
      off();
      reject(new Error(`the ${name} side exited (${signal ?? `code ${code}`})`));
    };
    const off = () => {
      child.off("message", onMessage);
      child.off("exit", onExit);
    };
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}

/**
 * Forks the side `name` of the benchmark whose side entry is `entry`, with `execArgv` added to
 * its Node options, and sets it up.
 */
export async function startSide<Fixture>(
  entry: URL,
  name: SideName,
  config: unknown,
  execArgv: string[] = [],
): Promise<Side<Fixture>> {
  const child = track(
    fork(fileURLToPath(entry), [name], {
      execArgv: ["--import", "tsx", ...execArgv],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  const send = (message: ToSide) => child.send(message);
  const ready = reply(child, name, "ready");
  send({ type: "config", config });
  const { port, fixture } = await ready;
  return {
    name,
    origin: `http://127.0.0.1:${port}`,
    fixture: fixture as Fixture,
    async start() {
      const started = reply(child, name, "started");
      send({ type: "start" });
      await started;
    },
    async stop() {
      const stopped = reply(child, name, "stopped");
      send({ type: "stop" });
      const { cpuMs, answered } = await stopped;
      return { cpuMs, answered };
    },
    async sample() {
      const sampled = reply(child, name, "sampled");
      send({ type: "sample" });
      const { gc, gcMs, memory, cpuMs, answered } = await sampled;
      return { gc, gcMs, memory, cpuMs, answered };
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      const kill = setTimeout(() => child.kill("SIGKILL"), CLOSE_MS);
      if (child.connected) child.disconnect();
      await exited;
      clearTimeout(kill);
    },
  };
}

// ---- In a side process ----------------------------------------------------------------------

export interface RunningSide {
  /** Listening on 127.0.0.1, any port. */
  server: http.Server;
  /** Sent to the harness with the port: what the other sides and the requests are made from. */
  fixture?: unknown;
  close(): Promise<void>;
}

/**
 * The body of a side process: waits for its config, starts the side named on the command line
 * with `start`, then answers start and stop until the harness disconnects.
 */
export function runSide<Config>(
  start: (name: SideName, config: Config) => Promise<RunningSide>,
): void {
  const name = process.argv[2] as SideName;
  const send = (message: FromSide) => process.send?.(message);
  if (!SIDE_NAMES.includes(name)) throw new Error(`unknown side ${String(name)}`);
  let running: RunningSide | undefined;
  let answered = 0;
  let cpuFrom = process.cpuUsage();

  process.on("message", (message: ToSide) => {
    switch (message.type) {
      case "config":
        start(name, message.config as Config).then(
          (side) => {
            running = side;
            side.server.on("request", (_req: http.IncomingMessage, res: http.ServerResponse) =>
              res.once("finish", () => answered++),
            );
            const { port } = side.server.address() as AddressInfo;
            send({ type: "ready", port, fixture: side.fixture });
          },
          (error: unknown) => {
            const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
            // Exit only once the message is out: the harness reports it.
            process.send?.({ type: "failed", message: text } satisfies FromSide, () =>
              process.exit(1),
            );
          },
        );
        break;
      case "start":
        answered = 0;
        cpuFrom = process.cpuUsage();
        send({ type: "started" });
        break;
      case "stop": {
        const cpu = process.cpuUsage(cpuFrom);
        send({ type: "stopped", cpuMs: (cpu.user + cpu.system) / 1000, answered });
        break;
      }
      case "sample": {
        // Twice: what the first collection freed by finalizers and weak references goes too.
        const gc = (globalThis as { gc?: () => void }).gc;
        const from = performance.now();
        gc?.();
        gc?.();
        const gcMs = performance.now() - from;
        const memory = process.memoryUsage();
        const cpu = process.cpuUsage(cpuFrom);
        const cpuMs = (cpu.user + cpu.system) / 1000;
        send({ type: "sampled", gc: gc !== undefined, gcMs, memory, cpuMs, answered });
        break;
      }
    }
  });
  process.once("disconnect", () => {
    const closing = running?.close() ?? Promise.resolve();
    closing.then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`the ${name} side did not close cleanly:`, error);
        process.exit(1);
      },
    );
  });
}
