/**
 * What a benchmark leaves behind is undone however it ends. Every child process it starts (the
 * sides, the backend, wrk) and every temp dir it makes is registered here; a normal end closes
 * them in order (sides.ts, query.ts), and the `exit` hook kills and removes whatever is left,
 * after an error or Ctrl-C as well. Children also exit on their own when their IPC channel
 * closes (sides.ts, backend.ts), which covers a harness killed with SIGKILL.
 */
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const children = new Set<ChildProcess>();
const dirs = new Set<string>();

/** Registers `child` to be killed if it still runs when the harness exits. */
export function track<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/** A new temp dir, removed when the harness exits (or earlier by `removeTempDir`). */
export function makeTempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-bench-"));
  dirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  dirs.delete(dir);
}

/** Synchronous, as an `exit` listener must be. */
function cleanUp() {
  for (const child of children) child.kill("SIGKILL");
  for (const dir of dirs) removeTempDir(dir);
}

/**
 * Installs the hooks; once, from the harness's entry point (never in a side process, which
 * must not hold on to the terminal's Ctrl-C). A signal exits through `process.exit`, so the
 * `exit` hook runs for it too.
 */
export function installCleanup(): void {
  process.on("exit", cleanUp);
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping the benchmark, cleaning up`);
      process.exit(code);
    });
  }
}
