/**
 * Every row of every table of a test database, in a fixed order, as text: two dumps are equal
 * exactly when nothing was written in between. For tests that prove a command touched nothing.
 */
import knexFactory, { type Knex } from "knex";
import type { DatabaseClient } from "../../core/settings.ts";

/** A knex on the database of `url` (sqlite:path, postgres://…, mysql://…). */
export function knexOf(url: string, client: DatabaseClient): Knex {
  return knexFactory(
    client === "sqlite"
      ? {
          client: "better-sqlite3",
          connection: { filename: url.slice("sqlite:".length) },
          useNullAsDefault: true,
        }
      : client === "postgres"
        ? { client: "pg", connection: url, pool: { min: 0, max: 1 } }
        : { client: "mysql2", connection: { uri: url } as never, pool: { min: 0, max: 1 } },
  );
}

async function tableNames(knex: Knex, client: DatabaseClient): Promise<string[]> {
  if (client === "sqlite") {
    const rows = await knex.raw<{ name: string }[]>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    );
    return rows.map((row) => row.name);
  }
  if (client === "postgres") {
    const result = await knex.raw<{ rows: { tablename: string }[] }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()",
    );
    return result.rows.map((row) => row.tablename);
  }
  const [rows] = (await knex.raw("SHOW TABLES")) as unknown as [Record<string, string>[]];
  return rows.map((row) => Object.values(row)[0] as string);
}

/** Every table with its rows, tables by name and rows by their JSON, one block per table. */
export async function dumpDatabase(url: string, client: DatabaseClient): Promise<string> {
  const knex = knexOf(url, client);
  try {
    const blocks: string[] = [];
    for (const table of (await tableNames(knex, client)).sort()) {
      const rows = (await knex(table).select("*")).map((row: unknown) => JSON.stringify(row));
      blocks.push(`== ${table} (${rows.length} rows)\n${rows.sort().join("\n")}`);
    }
    return blocks.join("\n");
  } finally {
    await knex.destroy();
  }
}
