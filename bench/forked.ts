/**
 * A child process of a benchmark that is told its task in one IPC message and answers it in
 * another (the crawl sides' runners, the generated sites), registered for cleanup (cleanup.ts).
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { track } from "./cleanup.ts";

/** Forks `entry` with tsx (and `execArgv`); rejects if it exits before its first message. */
export function forkWithReply<T>(entry: URL, execArgv: string[], message: unknown) {
  const child = track(
    fork(fileURLToPath(entry), [], {
      execArgv: ["--import", "tsx", ...execArgv],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  const reply = new Promise<T>((resolve, reject) => {
    child.once("message", (m) => resolve(m as T));
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      reject(new Error(`${entry.pathname} exited (${signal ?? `code ${code}`})`)),
    );
  });
  child.send(message as object);
  return { child, reply };
}

/** Disconnects `child` and waits for it to exit. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  if (child.connected) child.disconnect();
  await exited;
}
