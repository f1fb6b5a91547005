/**
 * Files only this user may read: the embedded database and its WAL hold sealed secrets, session
 * data and visitors' leads, and the generated master key opens those secrets.
 */
import fs from "node:fs";

/** Creates `dir` (and missing parents) as 0700, and makes an existing one 0700. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}

/**
 * Creates `file` empty as 0600 if it does not exist, and makes an existing one 0600. SQLite gives
 * a database's -wal and -shm files the database file's own mode, so this covers them too.
 */
export function ensurePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, "a", 0o600));
  fs.chmodSync(file, 0o600);
}
