/**
 * The embedded SQLite connection keeps its prepared statements: knex asks it to prepare every
 * query, and the same SQL gets the statement prepared the first time, run with new bindings.
 */
import { expect } from "chai";
import { openDatabase } from "./database.ts";

describe("embedded SQLite connection", () => {
  it("reuses the statement of the same SQL, with each call's bindings", async () => {
    const db = openDatabase({ client: "sqlite", url: "sqlite::memory:", filename: ":memory:" });
    try {
      await db.knex.schema.createTable("things", (t) => {
        t.integer("id").primary();
        t.string("name");
      });
      await db.knex("things").insert([
        { id: 1, name: "one" },
        { id: 2, name: "two" },
      ]);
      const connection = (await db.knex.client.acquireConnection()) as {
        prepare(sql: string): unknown;
      };
      try {
        const sql = "select name from things where id = ?";
        expect(connection.prepare(sql)).to.equal(connection.prepare(sql));
        expect(connection.prepare("select 1")).to.not.equal(connection.prepare(sql));
      } finally {
        await db.knex.client.releaseConnection(connection);
      }
      const byId = (id: number) => db.knex("things").where({ id }).first("name");
      expect(await byId(1)).to.deep.equal({ name: "one" });
      expect(await byId(2)).to.deep.equal({ name: "two" });
      expect(await byId(3)).to.equal(undefined);
    } finally {
      await db.knex.destroy();
    }
  });
});
