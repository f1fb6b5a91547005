/**
 * The CLI builds its parts where the service does (compose.ts), so a command acts as the service
 * does: a site `sitevoice sync --prune` deletes is recorded as `site.deleted`, like a delete
 * through the API.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import knexFactory from "knex";
import { runToEnd } from "./helpers/cli-process.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));

describe("sitevoice sync --prune", function () {
  this.timeout(60_000);
  let cwd: string;

  before(() => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-prune-"));
    fs.cpSync(path.join(repo, "sites"), path.join(cwd, "sites"), { recursive: true });
  });
  after(() => fs.rmSync(cwd, { recursive: true, force: true }));

  it("records site.deleted for the site it deletes, as the API does", async () => {
    const env = { DATABASE_URL: `sqlite:${path.join(cwd, "store.db")}`, SITEVOICE_DATA_DIR: cwd };
    const created = await runToEnd(["sync"], cwd, env);
    expect(created.code, created.output).to.equal(0);
    fs.rmSync(path.join(cwd, "sites", "nordic-home-shop.yaml"));
    const pruned = await runToEnd(["sync", "--prune"], cwd, env);
    expect(pruned.code, pruned.output).to.equal(0);
    expect(pruned.output).to.include("deleted nordic-home-shop");

    const knex = knexFactory({
      client: "better-sqlite3",
      connection: { filename: path.join(cwd, "store.db") },
      useNullAsDefault: true,
    });
    try {
      const events = await knex("service_events").where({ type: "site.deleted" });
      expect(events.map((e: { site_id: string }) => e.site_id)).to.deep.equal(["nordic-home-shop"]);
      expect(JSON.parse(events[0].data)).to.include({
        site_id: "nordic-home-shop",
        deleted_by: "operator:cli",
      });
      expect(await knex("sites").where({ site_id: "nordic-home-shop" })).to.have.length(0);
    } finally {
      await knex.destroy();
    }
  });
});
