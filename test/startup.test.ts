/**
 * `npm start` as a newcomer runs it: the real CLI in a child process on the embedded SQLite
 * default, in an empty folder. Every scenario runs in a folder of its own, in hooks; the tests
 * check what it left.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { freePort, run, serving, stop } from "./helpers/cli-process.ts";

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
