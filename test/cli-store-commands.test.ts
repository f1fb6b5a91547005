/**
 * The commands that only touch the store (migrate, keys, secrets rotate) work while the plugin
 * configuration is broken, so an operator can still migrate, make a key or rotate secrets; the
 * real CLI in a child process, with SITEVOICE_PLUGINS naming a package that is not installed.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { runToEnd } from "./helpers/cli-process.ts";

describe("store-only commands with a broken plugin configuration", function () {
  this.timeout(60_000);
  let cwd: string;
  let env: Record<string, string>;

  beforeEach(() => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-store-cli-"));
    env = {
      DATABASE_URL: `sqlite:${path.join(cwd, "store.db")}`,
      SITEVOICE_DATA_DIR: path.join(cwd, "data"),
      SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
      SITEVOICE_PLUGINS: "no-such-pkg",
    };
  });
  afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }));

  it("migrate brings the schema up to date", async () => {
    const migrated = await runToEnd(["migrate"], cwd, env);
    expect(migrated.code, migrated.output).to.equal(0);
    expect(migrated.output).to.include("database is up to date");
  });

  it("keys create prints a new key, and keys list shows it", async () => {
    const created = await runToEnd(
      ["keys", "create", "--name", "ops", "--scopes", "sites:read"],
      cwd,
      env,
    );
    expect(created.code, created.output).to.equal(0);
    const id = /^(key_\S+) {2}sites:read {2}\(live\)$/m.exec(created.output)?.[1];
    expect(id, created.output).to.be.a("string");
    expect(created.output).to.match(/^ {2}vk_live_[A-Za-z0-9_-]{32}$/m);

    const listed = await runToEnd(["keys", "list"], cwd, env);
    expect(listed.code, listed.output).to.equal(0);
    expect(listed.output).to.include(`${id}  `);
    expect(listed.output).to.match(/ops {2}sites:read {2}all sites {2}active/);
  });

  it("keys create refuses site ids that are not the workspace's, as the API does, and makes no key", async () => {
    const refused = await runToEnd(["keys", "create", "--site-ids", "nope"], cwd, env);
    expect(refused.code).to.equal(1);
    // After the first key of the default workspace it created, one line.
    expect(refused.output.trim().split("\n").at(-1)).to.equal(
      "sitevoice: site_ids names nope, not a site of this workspace (site_ids)",
    );
    const listed = await runToEnd(["keys", "list"], cwd, env);
    expect(listed.output).not.to.include("CLI key");
  });

  it("keys list shows the sites a key is limited to, and all sites for the others", async () => {
    await runToEnd(["keys", "create", "--name", "everything"], cwd, env);
    const { knex } = await import("./helpers/database-dump.ts").then(({ knexOf }) => ({
      knex: knexOf(env.DATABASE_URL!, "sqlite"),
    }));
    try {
      // A site of the default workspace, written as the store holds one: the CLI has no site
      // command that works without the plugins this suite breaks.
      await knex("sites").insert({
        site_id: "corner-bakery",
        workspace_id: "ws_default",
        business_name: "Corner Bakery",
        domain: "cornerbakery.example",
        config: "{}",
        version: 1,
        content_hash: "x",
        created_at: Date.now(),
        updated_at: Date.now(),
      });
    } finally {
      await knex.destroy();
    }
    const created = await runToEnd(
      [
        "keys",
        "create",
        "--name",
        "bakery",
        "--scopes",
        "sites:read",
        "--site-ids",
        "corner-bakery",
      ],
      cwd,
      env,
    );
    expect(created.code, created.output).to.equal(0);
    const listed = await runToEnd(["keys", "list"], cwd, env);
    expect(listed.output).to.match(/ bakery {2}sites:read {2}corner-bakery {2}active$/m);
    expect(listed.output).to.match(/ everything {2}\S+ {2}all sites {2}active$/m);
  });

  it("secrets rotate re-seals under the master key", async () => {
    const rotated = await runToEnd(["secrets", "rotate"], cwd, env);
    expect(rotated.code, rotated.output).to.equal(0);
    expect(rotated.output).to.match(/^re-sealed 0 sites, 0 versions, 0 open sessions/m);
  });

  it("workspace list shows the default workspace: id, plan, sites, name", async () => {
    await runToEnd(["keys", "list"], cwd, env); // creates the default workspace
    const listed = await runToEnd(["workspace", "list"], cwd, env);
    expect(listed.code, listed.output).to.equal(0);
    expect(listed.output).to.equal("ws_default  business  0 sites  Default workspace\n");
  });

  it("workspace plan changes a workspace's plan, and workspace list shows it", async () => {
    await runToEnd(["keys", "list"], cwd, env);
    const changed = await runToEnd(["workspace", "plan", "ws_default", "starter"], cwd, env);
    expect(changed.code, changed.output).to.equal(0);
    expect(changed.output).to.equal("ws_default: plan starter (was business), 5 sites\n");
    const listed = await runToEnd(["workspace", "list"], cwd, env);
    expect(listed.output).to.equal("ws_default  starter  0 sites  Default workspace\n");
  });

  it("workspace plan refuses an unknown plan, naming the plans, and changes nothing", async () => {
    await runToEnd(["keys", "list"], cwd, env);
    const refused = await runToEnd(["workspace", "plan", "ws_default", "gold"], cwd, env);
    expect(refused.code).to.equal(1);
    expect(refused.output.trim()).to.equal(
      "sitevoice: Unknown plan 'gold': one of free, starter, pro, business, enterprise (plan)",
    );
    const listed = await runToEnd(["workspace", "list"], cwd, env);
    expect(listed.output).to.include("ws_default  business");
  });

  it("workspace plan refuses an unknown workspace", async () => {
    const refused = await runToEnd(["workspace", "plan", "ws_nope", "pro"], cwd, env);
    expect(refused.code).to.equal(1);
    expect(refused.output.trim()).to.equal("sitevoice: Workspace 'ws_nope' not found");
  });

  it("a command that loads the plugins still refuses, naming the package", async () => {
    const validated = await runToEnd(["validate"], cwd, env);
    expect(validated.code).to.equal(1);
    expect(validated.output).to.include('package "no-such-pkg" could not be imported');
  });
});
