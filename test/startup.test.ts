/**
 * `npm start` as a newcomer runs it: the real CLI in a child process on the embedded SQLite
 * default, in an empty folder.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { freePort, run, serving, stop } from "./helpers/cli-process.ts";

describe("npm start on the embedded default", function () {
  this.timeout(60_000);
  let cwd: string;

  before(() => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-start-"));
  });
  after(() => fs.rmSync(cwd, { recursive: true, force: true }));

  it("creates ./data, prints a first key once, serves with it, and reuses everything on a second start", async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = run(["serve"], cwd, { PORT: String(port) });
    await serving(first);
    const key = /(vk_test_[A-Za-z0-9_-]{32})/.exec(first.output())?.[1];
    expect(key, first.output()).to.be.a("string");
    expect(fs.existsSync(path.join(cwd, "data", "sitevoice.db"))).to.equal(true);
    expect(fs.existsSync(path.join(cwd, "data", "master.key"))).to.equal(true);

    const health = await (await fetch(`${base}/v1/health`)).json();
    expect(health.data.database).to.include({ client: "sqlite", ok: true });
    const created = await fetch(`${base}/v1/sites`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        business_name: "Demo",
        business_description: "A demo",
        domain: "demo.example",
      }),
    });
    expect(created.status).to.equal(201);
    expect(await stop(first)).to.equal(0);

    const second = run(["serve"], cwd, { PORT: String(port) });
    await serving(second);
    expect(second.output()).not.to.match(/vk_test_/);
    const list = await (
      await fetch(`${base}/v1/sites`, { headers: { Authorization: `Bearer ${key}` } })
    ).json();
    expect(list.data.map((s: { domain: string }) => s.domain)).to.deep.equal(["demo.example"]);
    expect(await stop(second)).to.equal(0);
  });

  it("keeps ./data private: the folder 0700, the database, its WAL and SHM and the key 0600", async () => {
    const own = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-private-"));
    try {
      const started = run(["serve"], own, { PORT: String(await freePort()) });
      await serving(started);
      const mode = (file: string) => fs.statSync(path.join(own, "data", file)).mode & 0o777;
      expect(mode(".").toString(8)).to.equal("700");
      for (const file of ["sitevoice.db", "sitevoice.db-wal", "sitevoice.db-shm", "master.key"]) {
        expect(mode(file).toString(8), file).to.equal("600");
      }
      expect(await stop(started)).to.equal(0);
    } finally {
      fs.rmSync(own, { recursive: true, force: true });
    }
  });

  it("stops with one line naming a bad setting and exit code 1", async () => {
    const bad = run(["serve"], cwd, { PORT: "eighty" });
    expect(await bad.exited).to.equal(1);
    expect(bad.output().trim()).to.equal(
      'sitevoice: invalid setting PORT: must be an integer from 0 to 65535 (got "eighty")',
    );
  });

  it("loads a plugin package by name, and keeps serving when one throws in create", async () => {
    const port = await freePort();
    const started = run(["serve"], cwd, {
      PORT: String(port),
      SITEVOICE_PLUGINS: "sitevoice-adapter-example, sitevoice-sink-throws",
    });
    await serving(started);
    const health = await (await fetch(`http://127.0.0.1:${port}/v1/health`)).json();
    const plugins = Object.fromEntries(
      health.data.plugins.map((p: { name: string; status: string }) => [p.name, p]),
    );
    expect(plugins["sitevoice-adapter-example"]).to.include({ kind: "adapter", type: "example" });
    expect(plugins["sitevoice-sink-throws"]).to.include({ status: "failed" });
    expect(plugins["sitevoice-sink-throws"].error).to.match(/sink cannot start/);
    expect(await stop(started)).to.equal(0);
  });

  it("refuses to start with a plugin built for another apiVersion, naming it and the field", async () => {
    const started = run(["serve"], cwd, {
      PORT: String(await freePort()),
      SITEVOICE_PLUGINS: "sitevoice-plugin-future",
    });
    expect(await started.exited).to.equal(1);
    expect(started.output()).to.match(/sitevoice-plugin-future/);
    expect(started.output()).to.match(/apiVersion/);
  });
});
