/**
 * `npm start` as a newcomer runs it: the real CLI in a child process on the embedded SQLite
 * default, in an empty folder. Every scenario runs in a folder of its own, in hooks; the tests
 * check what it left.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { freePort, run, runToEnd, serving, stop } from "./helpers/cli-process.ts";
import { dumpDatabase } from "./helpers/database-dump.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));

describe("npm start on the embedded default", function () {
  this.timeout(60_000);

  describe("a first start in an empty folder, then a second", () => {
    let cwd: string;
    let key: string | undefined;
    let firstOutput: string;
    let files: { database: boolean; masterKey: boolean };
    let health: { data: { database: unknown; plugins: Record<string, unknown>[] } };
    let createdStatus: number;
    let secondOutput: string;
    let listedDomains: string[];
    const stopCodes: (number | null)[] = [];

    before(async () => {
      cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-start-"));
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const first = run(["serve"], cwd, { PORT: String(port) });
      try {
        await serving(first);
        firstOutput = first.output();
        key = /(vk_test_[A-Za-z0-9_-]{32})/.exec(firstOutput)?.[1];
        files = {
          database: fs.existsSync(path.join(cwd, "data", "sitevoice.db")),
          masterKey: fs.existsSync(path.join(cwd, "data", "master.key")),
        };
        health = await (await fetch(`${base}/v1/health`)).json();
        const created = await fetch(`${base}/v1/sites`, {
          method: "POST",
          headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
          body: JSON.stringify({
            business_name: "Demo",
            business_description: "A demo",
            domain: "demo.example",
          }),
        });
        createdStatus = created.status;
      } finally {
        stopCodes.push(await stop(first));
      }

      const second = run(["serve"], cwd, { PORT: String(port) });
      try {
        await serving(second);
        secondOutput = second.output();
        const list = await (
          await fetch(`${base}/v1/sites`, { headers: { Authorization: `Bearer ${key}` } })
        ).json();
        listedDomains = list.data.map((s: { domain: string }) => s.domain);
      } finally {
        stopCodes.push(await stop(second));
      }
    });
    after(() => fs.rmSync(cwd, { recursive: true, force: true }));

    it("creates ./data with the database and the master key", () => {
      expect(files.database).to.equal(true);
      expect(files.masterKey).to.equal(true);
    });

    it("prints a first key, and serves with it", () => {
      expect(key, firstOutput).to.be.a("string");
      expect(health.data.database).to.include({ client: "sqlite", ok: true });
      expect(createdStatus).to.equal(201);
    });

    it("lists auth-local in /v1/health as active, for the dashboard's sign-in", () => {
      const auth = health.data.plugins.find((plugin) => plugin.name === "auth-local");
      expect(auth).to.deep.include({ kind: "auth", status: "active" });
      expect(auth?.note).to.match(/sign-in/);
    });

    it("prints no key on the second start", () => {
      expect(secondOutput).not.to.match(/vk_test_/);
    });

    it("reuses everything on the second start: the first key lists the site made before", () => {
      expect(listedDomains).to.deep.equal(["demo.example"]);
    });

    it("stops with exit code 0 both times", () => {
      expect(stopCodes[0]).to.equal(0);
      expect(stopCodes[1]).to.equal(0);
    });
  });

  describe("the voice provider's key at start", () => {
    const outputs: Record<string, string> = {};
    /** The JSON log lines at warn of an output. */
    const warnings = (output: string) =>
      output
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .filter((line) => line.level === 40);

    before(async () => {
      for (const [name, key] of [
        ["without", ""],
        ["with", "sk-not-checked-at-start"],
      ]) {
        const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-voice-"));
        const started = run(["serve"], cwd, {
          PORT: String(await freePort()),
          OPENAI_API_KEY: key!,
        });
        try {
          await serving(started);
          outputs[name!] = started.output();
        } finally {
          await stop(started);
          fs.rmSync(cwd, { recursive: true, force: true });
        }
      }
    });

    it("without OPENAI_API_KEY, logs a warning that voice calls are not available", () => {
      const voice = warnings(outputs.without!).filter((line) => /voice calls/i.test(line.msg));
      expect(voice.map((line) => line.msg)).to.deep.equal([
        "Voice calls are not available: no OpenAI API key is configured (set OPENAI_API_KEY)",
      ]);
    });

    it("without OPENAI_API_KEY, prints the notice beside the dashboard's address", () => {
      expect(outputs.without).to.match(
        /^Voice calls are not available: no OpenAI API key is configured \(set OPENAI_API_KEY\)/m,
      );
    });

    it("with OPENAI_API_KEY, neither logs nor prints it", () => {
      const voice = warnings(outputs.with!).filter((line) => /voice calls/i.test(line.msg));
      expect(voice).to.deep.equal([]);
      expect(outputs.with).not.to.match(/voice calls are not available/i);
    });
  });

  describe("keeps ./data private: the folder 0700, the database, its WAL and SHM and the key 0600", () => {
    let own: string;
    let modes: Record<string, string>;
    let stopCode: number | null;
    const FILES = ["sitevoice.db", "sitevoice.db-wal", "sitevoice.db-shm", "master.key"];

    // The modes are read while the service runs: the WAL and SHM files exist only then.
    before(async () => {
      own = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-private-"));
      const started = run(["serve"], own, { PORT: String(await freePort()) });
      try {
        await serving(started);
        const mode = (file: string) => fs.statSync(path.join(own, "data", file)).mode & 0o777;
        modes = Object.fromEntries([".", ...FILES].map((file) => [file, mode(file).toString(8)]));
      } finally {
        stopCode = await stop(started);
      }
    });
    after(() => fs.rmSync(own, { recursive: true, force: true }));

    it("the data folder is 0700", () => {
      expect(modes["."]).to.equal("700");
    });

    for (const file of FILES) {
      it(`${file} is 0600`, () => {
        expect(modes[file], file).to.equal("600");
      });
    }

    it("the service stops with exit code 0", () => {
      expect(stopCode).to.equal(0);
    });
  });

  describe("a second start while one runs on the port", () => {
    let cwd: string;
    let port: number;
    let first: ReturnType<typeof run> | undefined;
    let dumpBefore: string;
    let second: { code: number | null; output: string };
    let dumpAfter: string;

    before(async () => {
      cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-taken-"));
      fs.cpSync(path.join(repo, "sites"), path.join(cwd, "sites"), { recursive: true });
      port = await freePort();
      // No jobs: the running instance writes nothing while the second one tries to start.
      const env = { PORT: String(port), HOST: "127.0.0.1", SITEVOICE_JOBS: "off" };
      first = run(["serve"], cwd, env);
      await serving(first);
      const database = `sqlite:${path.join(cwd, "data", "sitevoice.db")}`;
      dumpBefore = await dumpDatabase(database, "sqlite");
      // What the second start would write if it got as far as its site files.
      const luigis = path.join(cwd, "sites", "luigis-trattoria.yaml");
      fs.writeFileSync(
        luigis,
        fs.readFileSync(luigis, "utf8").replace(/^voice: .*$/m, "voice: sage"),
      );
      const started = run(["serve"], cwd, env);
      second = { code: await started.exited, output: started.output() };
      dumpAfter = await dumpDatabase(database, "sqlite");
    });
    after(async () => {
      if (first !== undefined) await stop(first);
      fs.rmSync(cwd, { recursive: true, force: true });
    });

    it("stops at once with one line naming the port, and exit code 1", () => {
      expect(second.code).to.equal(1);
      expect(second.output.trim()).to.equal(
        `sitevoice: port ${port} is in use on 127.0.0.1: is Sitevoice already running? ` +
          "Stop it, or set PORT to a free port",
      );
    });

    it("writes nothing to the database", () => {
      expect(dumpAfter).to.equal(dumpBefore);
    });
  });

  describe("a first start on a port in use", () => {
    let cwd: string;
    let port: number;
    let code: number | null;
    let output: string;

    before(async () => {
      cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-taken-"));
      port = await freePort();
      const taken = net.createServer();
      await new Promise<void>((resolve) => taken.listen(port, "127.0.0.1", resolve));
      try {
        const started = run(["serve"], cwd, { PORT: String(port), HOST: "127.0.0.1" });
        code = await started.exited;
        output = started.output();
      } finally {
        await new Promise((resolve) => taken.close(resolve));
      }
    });
    after(() => fs.rmSync(cwd, { recursive: true, force: true }));

    it("creates no data folder, database or master key", () => {
      expect(code, output).to.equal(1);
      expect(fs.readdirSync(cwd)).to.deep.equal([]);
    });
  });

  describe("a default workspace whose plan cannot hold the example sites", function () {
    this.timeout(180_000);
    let cwd: string;
    let port: number;
    const env = () => ({ PORT: String(port), HOST: "127.0.0.1", SITEVOICE_JOBS: "off" });
    const database = () => `sqlite:${path.join(cwd, "data", "sitevoice.db")}`;
    let key: string | undefined;
    /** A start that serves: what it printed and the sites it lists; then stopped. */
    const serveOnce = async (extra: Record<string, string> = {}) => {
      const started = run(["serve"], cwd, { ...env(), ...extra });
      try {
        await serving(started);
        const output = started.output();
        key ??= /(vk_test_[A-Za-z0-9_-]{32})/.exec(output)?.[1];
        const list = await (
          await fetch(`http://127.0.0.1:${port}/v1/sites`, {
            headers: { Authorization: `Bearer ${key}` },
          })
        ).json();
        return { output, sites: list.data?.map((s: { site_id: string }) => s.site_id) };
      } finally {
        await stop(started);
      }
    };
    /** A start expected to stop by itself; killed after 30 s if it serves instead. */
    const refusedStart = async (extra: Record<string, string> = {}) => {
      const started = run(["serve"], cwd, { ...env(), ...extra });
      const timer = setTimeout(() => started.child.kill("SIGTERM"), 30_000);
      const code = await started.exited;
      clearTimeout(timer);
      return { code, output: started.output() };
    };

    let byEnv: { code: number | null; output: string };
    let workspacesAfterRefusal: string;
    let withoutFiles: Awaited<ReturnType<typeof serveOnce>>;
    let byStoredPlan: { code: number | null; output: string };
    let afterPlanChange: Awaited<ReturnType<typeof serveOnce>>;
    let afterPlanLowered: Awaited<ReturnType<typeof serveOnce>>;
    const lastLine = (output: string) => output.trim().split("\n").at(-1);

    before(async () => {
      cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-plan-"));
      fs.cpSync(path.join(repo, "sites"), path.join(cwd, "sites"), { recursive: true });
      port = await freePort();
      byEnv = await refusedStart({ SITEVOICE_DEFAULT_PLAN: "free" });
      workspacesAfterRefusal = (await dumpDatabase(database(), "sqlite"))
        .split("\n")
        .filter((line) => line.startsWith("== workspaces") || line.startsWith("== sites "))
        .join("\n");
      withoutFiles = await serveOnce({ SITEVOICE_SITES_DIR: "" });
      await runToEnd(["workspace", "plan", "ws_default", "free"], cwd, env());
      byStoredPlan = await refusedStart();
      await runToEnd(["workspace", "plan", "ws_default", "starter"], cwd, env());
      afterPlanChange = await serveOnce();
      await runToEnd(["workspace", "plan", "ws_default", "free"], cwd, env());
      afterPlanLowered = await serveOnce();
    });
    after(() => fs.rmSync(cwd, { recursive: true, force: true }));

    it("refuses to start under SITEVOICE_DEFAULT_PLAN=free, naming the plan and the setting", () => {
      expect(byEnv.code, byEnv.output).to.equal(1);
      expect(lastLine(byEnv.output)).to.equal(
        "sitevoice: the default workspace's plan free allows 1 site, and the site files of " +
          "sites need 3: set SITEVOICE_DEFAULT_PLAN to starter or a larger plan, or load fewer " +
          "site files (SITEVOICE_SITES_DIR)",
      );
    });

    it("creates no workspace and no site when it refuses", () => {
      expect(workspacesAfterRefusal).to.equal("== sites (0 rows)\n== workspaces (0 rows)");
    });

    it("so the next start still creates the default workspace and prints its first key", () => {
      expect(withoutFiles.output).to.match(/First API key/);
      expect(withoutFiles.sites).to.deep.equal([]);
    });

    it("refuses to start on a stored plan that cannot hold them, naming the command that changes it", () => {
      expect(byStoredPlan.code, byStoredPlan.output).to.equal(1);
      expect(lastLine(byStoredPlan.output)).to.equal(
        "sitevoice: the default workspace's plan free allows 1 site, and the site files of " +
          "sites need 3: run `sitevoice workspace plan ws_default starter` (or set " +
          "SITEVOICE_DEFAULT_PLAN), or load fewer site files (SITEVOICE_SITES_DIR)",
      );
    });

    it("starts with every example site once the plan holds them", () => {
      expect(afterPlanChange.output).not.to.include("site file not loaded");
      expect(afterPlanChange.sites).to.have.members([
        "bright-smiles-dental",
        "luigis-trattoria",
        "nordic-home-shop",
      ]);
    });

    it("a plan lowered after they loaded keeps them, and starts: nothing is left out", () => {
      expect(afterPlanLowered.output).not.to.include("site file not loaded");
      expect(afterPlanLowered.sites).to.have.length(3);
    });
  });

  describe("in an empty folder of its own", () => {
    let cwd: string;

    beforeEach(() => {
      cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-start-"));
    });
    afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }));

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
      let stopCode: number | null;
      try {
        await serving(started);
        const health = await (await fetch(`http://127.0.0.1:${port}/v1/health`)).json();
        const plugins = Object.fromEntries(
          health.data.plugins.map((p: { name: string; status: string }) => [p.name, p]),
        );
        expect(plugins["sitevoice-adapter-example"]).to.include({
          kind: "adapter",
          type: "example",
        });
        expect(plugins["sitevoice-sink-throws"]).to.include({ status: "failed" });
        expect(plugins["sitevoice-sink-throws"].error).to.match(/sink cannot start/);
      } finally {
        stopCode = await stop(started);
      }
      expect(stopCode).to.equal(0);
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
});
