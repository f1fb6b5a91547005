/** The real CLI in a child process, as a user runs it, for start-up and command tests. */
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const CLI = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "bin",
  "sitevoice.js",
);

export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

export interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

export function run(args: string[], cwd: string, env: Record<string, string>): Run {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(DATABASE_URL|REDIS_URL|SITEVOICE_|PORT$)/.test(k),
    ),
  );
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    // No load balancer in front: a stop needs no drain unless the test asks for one.
    env: { ...clean, LOG_LEVEL: "info", SITEVOICE_DRAIN_MS: "0", ...env },
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  return {
    child,
    output: () => output,
    exited: new Promise((resolve) => child.on("exit", (code) => resolve(code))),
  };
}

/** Resolves once the service prints that it listens; rejects if it exits first. */
export async function serving(started: Run): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!started.output().includes("Sitevoice listening")) {
    if (started.child.exitCode !== null) throw new Error(`service exited: ${started.output()}`);
    if (Date.now() > deadline) throw new Error(`service did not start: ${started.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function stop(started: Run): Promise<number | null> {
  started.child.kill("SIGTERM");
  return started.exited;
}

/** Runs a CLI command to its end; its exit code and everything it printed. */
export async function runToEnd(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const started = run(args, cwd, env);
  const code = await started.exited;
  return { code, output: started.output() };
}
