/**
 * The databases the event benchmark runs the service on, and the count afterwards: SQLite (the
 * default, a file in a temp dir) and a fresh PostgreSQL database on 127.0.0.1:5432
 * (`sitevoice_bench_<random>`, made on the `test` database; BENCH_PG_URL names another admin
 * URL), created and dropped by a guard process of its own (pg-guard.ts), so it is dropped
 * however the harness ends. The stored rows are read with the service's own database opener.
 */
import { fork } from "node:child_process";
import crypto from "node:crypto";
import { fileURLToPath } from "node:url";
import { parseDatabaseUrl, type Settings } from "../core/settings.ts";
import { openDatabase } from "../core/store/database.ts";

export type DatabaseName = "sqlite" | "postgres";

export interface BenchDatabase {
  name: DatabaseName;
  /** DATABASE_URL for the service; unset: SQLite in its data dir. */
  url?: string;
  /** Where the stored rows are read after the run. */
  database: Settings["database"];
  /** Drops the PostgreSQL database (nothing for SQLite: its temp dir goes with the harness's). */
  close(): Promise<void>;
}

const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export function sqliteDatabase(dataDir: string): BenchDatabase {
  return {
    name: "sqlite",
    database: parseDatabaseUrl(undefined, dataDir),
    close: async () => {},
  };
}

/** A fresh PostgreSQL database; rejects if the server is not there. */
export async function postgresDatabase(dataDir: string): Promise<BenchDatabase> {
  const name = `sitevoice_bench_${crypto.randomBytes(6).toString("hex")}`;
  // Not tracked by cleanup.ts, which kills what it tracks: this one must outlive the harness.
  const guard = fork(
    fileURLToPath(new URL("./pg-guard.ts", import.meta.url)),
    [PG_ADMIN_URL, name],
    {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  const exited = new Promise<number | null>((resolve) => guard.once("exit", resolve));
  const close = async () => {
    if (guard.connected) guard.disconnect();
    const code = await exited;
    if (code !== 0) throw new Error(`the PostgreSQL database ${name} may not have been dropped`);
  };
  const ready = await new Promise<{ type: string; message?: string }>((resolve) => {
    guard.once("message", resolve);
    void exited.then((code) => resolve({ type: "failed", message: `exited (${code})` }));
  });
  if (ready.type !== "ready") {
    await close().catch(() => {});
    throw new Error(`no PostgreSQL database at ${PG_ADMIN_URL}: ${ready.message}`);
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name: "postgres",
    url: url.toString(),
    database: parseDatabaseUrl(url.toString(), dataDir),
    close,
  };
}

/** The ids of every stored usage event of `type` of the sites `siteIds`. */
export async function storedIds(
  database: Settings["database"],
  type: string,
  siteIds: readonly string[],
): Promise<string[]> {
  const db = openDatabase(database);
  try {
    const rows = await db
      .knex("usage_events")
      .whereIn("site_id", [...siteIds])
      .where({ type })
      .select<{ id: string }[]>("id");
    return rows.map((row) => row.id);
  } finally {
    await db.knex.destroy();
  }
}
