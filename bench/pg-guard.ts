/**
 * The keeper of the event benchmark's PostgreSQL database (forked by events-db.ts):
 * `node --import tsx bench/pg-guard.ts <admin url> <name>`. It creates the database through the
 * admin connection, says {type: "ready"} (or {type: "failed", message}), and drops it once the
 * harness disconnects, however the harness ends: a normal end, an error, Ctrl-C, even SIGKILL.
 * It ignores the signals a terminal sends its whole process group, so that it is still there to
 * drop the database after the harness has gone, and then exits (in 30 s at most).
 */
import pg from "pg";

const [adminUrl, name] = process.argv.slice(2);
const send = (message: { type: "ready" } | { type: "failed"; message: string }) =>
  new Promise<void>((resolve) => process.send?.(message, () => resolve()));

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function drop(): Promise<void> {
  setTimeout(() => {
    console.error(`pg-guard: database ${name} not dropped in 30 s`);
    process.exit(1);
  }, 30_000).unref();
  try {
    await admin((client) => client.query(`drop database if exists ${name} with (force)`));
    process.exit(0);
  } catch (error) {
    console.error(`pg-guard: could not drop database ${name}:`, error);
    process.exit(1);
  }
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => {});
process.once("disconnect", () => void drop());

if (adminUrl === undefined || name === undefined || !/^sitevoice_bench_[0-9a-f]+$/.test(name)) {
  await send({ type: "failed", message: `usage: pg-guard.ts <admin url> sitevoice_bench_<hex>` });
  process.exit(2);
}
try {
  await admin((client) => client.query(`create database ${name}`));
  await send({ type: "ready" });
} catch (error) {
  await send({ type: "failed", message: error instanceof Error ? error.message : String(error) });
}
