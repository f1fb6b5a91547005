/**
 * The start-up load across restarts of the real `sitevoice serve`: a site changed through the API
 * (a PATCH, or a PUT as YAML by `sitevoice sync --remote`) since the start-up load wrote it
 * survives a restart untouched, with a log line naming it and why; a site file edited on disk,
 * or whose secret variable changed, while nobody changed its site is applied on the next start.
 * On every database.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { freePort, run, runToEnd, serving, stop } from "./helpers/cli-process.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));
const REMOTE_TOKEN = "tok_remote_9f8e7d6c5b4a";

/** A site whose secret comes from the environment of each start. */
const CORNER_CAFE = `site_id: corner-cafe
business_name: Corner Cafe
business_description: Coffee and cakes.
domain: cornercafe.example
voice: alloy
adapter:
  type: rest
  config:
    baseUrl: https://api.cornercafe.example
    auth:
      type: bearer
      value: \${env:CORNER_CAFE_TOKEN}
  collections:
    menu:
      source: /menu
      description: What the cafe serves.
      searchable_fields: [name]
      display_fields: [name]
`;

interface SiteState {
  voice: string;
  version: number;
  /** The masked bearer token of a REST site. */
  token?: string;
}

interface LogLine {
  msg: string;
  site_id?: string;
}

for (const target of databaseTargets) {
  describe(`npm start on ${target.label}: a restart keeps changes made through the API`, function () {
    this.timeout(180_000);
    let database: TestDatabase | undefined;
    let cwd: string;
    let afterChanges: Record<string, SiteState>;
    let restarted: Record<string, SiteState>;
    let restartLog: LogLine[];
    let afterEdit: Record<string, SiteState>;
    let editLog: LogLine[];

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-restart-"));
      fs.cpSync(path.join(repo, "sites"), path.join(cwd, "sites"), { recursive: true });
      fs.writeFileSync(path.join(cwd, "sites", "corner-cafe.yaml"), CORNER_CAFE);
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const env = {
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: database!.url,
        SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
        SITEVOICE_DATA_DIR: path.join(cwd, "data"),
        SITEVOICE_JOBS: "off",
        CORNER_CAFE_TOKEN: "tok_first_1111",
      };
      let key = "";
      const states = async () => {
        const read = async (siteId: string): Promise<SiteState> => {
          const res = await fetch(`${base}/v1/sites/${siteId}`, {
            headers: { Authorization: `Bearer ${key}` },
          });
          const site = (await res.json()).data;
          return {
            voice: site.voice,
            version: site.version,
            token: site.adapter.config.auth?.value,
          };
        };
        return {
          "bright-smiles-dental": await read("bright-smiles-dental"),
          "luigis-trattoria": await read("luigis-trattoria"),
          "nordic-home-shop": await read("nordic-home-shop"),
          "corner-cafe": await read("corner-cafe"),
        };
      };
      const skips = (output: string): LogLine[] =>
        output
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as LogLine)
          .filter((line) => line.msg.startsWith("site file not loaded"));

      // First start: the files are applied; then changes through the API.
      const first = run(["serve"], cwd, env);
      try {
        await serving(first);
        key = /(vk_test_[A-Za-z0-9_-]{32})/.exec(first.output())?.[1] ?? "";
        const patched = await fetch(`${base}/v1/sites/nordic-home-shop`, {
          method: "PATCH",
          headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
          body: JSON.stringify({ voice: "coral" }),
        });
        if (patched.status !== 200) throw new Error(`PATCH: ${await patched.text()}`);
        // `sync --remote` of an edited copy of one file: a PUT as YAML, source yaml.
        const remote = path.join(cwd, "remote-sites");
        fs.mkdirSync(remote);
        const file = path.join(remote, "bright-smiles-dental.yaml");
        fs.writeFileSync(
          file,
          fs
            .readFileSync(path.join(cwd, "sites", "bright-smiles-dental.yaml"), "utf8")
            .replace(/^voice: .*$/m, "voice: echo"),
        );
        const synced = await runToEnd(["sync", file, "--remote", base], cwd, {
          SITEVOICE_API_KEY: key,
          BRIGHT_SMILES_API_TOKEN: REMOTE_TOKEN,
        });
        if (synced.code !== 0) throw new Error(`sync --remote: ${synced.output}`);
        afterChanges = await states();
      } finally {
        await stop(first);
      }

      // A restart with the files as they were.
      const second = run(["serve"], cwd, env);
      try {
        await serving(second);
        restarted = await states();
        restartLog = skips(second.output());
      } finally {
        await stop(second);
      }

      // A file edited on disk and a secret variable changed, nobody having changed their sites:
      // the next start applies them.
      const luigis = path.join(cwd, "sites", "luigis-trattoria.yaml");
      fs.writeFileSync(
        luigis,
        fs.readFileSync(luigis, "utf8").replace(/^voice: .*$/m, "voice: verse"),
      );
      const third = run(["serve"], cwd, { ...env, CORNER_CAFE_TOKEN: "tok_second_2222" });
      try {
        await serving(third);
        afterEdit = await states();
        editLog = skips(third.output());
      } finally {
        await stop(third);
      }
    });
    after(async () => {
      await database?.drop();
      if (cwd) fs.rmSync(cwd, { recursive: true, force: true });
    });

    it("the changes through the API were made (PATCH, and PUT as YAML with a new token)", () => {
      expect(afterChanges["nordic-home-shop"]).to.include({ voice: "coral", version: 2 });
      expect(afterChanges["bright-smiles-dental"]).to.deep.equal({
        voice: "echo",
        version: 2,
        token: `••••${REMOTE_TOKEN.slice(-4)}`,
      });
    });

    it("a restart keeps the PATCHed site as it was changed, with no new version", () => {
      expect(restarted["nordic-home-shop"]).to.deep.equal(afterChanges["nordic-home-shop"]);
    });

    it("a restart keeps the site PUT as YAML, its voice and its secret, with no new version", () => {
      expect(restarted["bright-smiles-dental"]).to.deep.equal(afterChanges["bright-smiles-dental"]);
    });

    it("the restart logs which sites it skipped and why", () => {
      const bySite = Object.fromEntries(restartLog.map((line) => [line.site_id, line.msg]));
      expect(Object.keys(bySite).sort()).to.deep.equal([
        "bright-smiles-dental",
        "nordic-home-shop",
      ]);
      expect(bySite["nordic-home-shop"]).to.match(/changed by api_key:key_\w+ through api/);
      expect(bySite["bright-smiles-dental"]).to.match(/changed by api_key:key_\w+ through yaml/);
      expect(bySite["nordic-home-shop"]).to.include("not overwritten");
    });

    it("a file edited on disk is applied on the next start when nobody changed its site", () => {
      expect(afterEdit["luigis-trattoria"]).to.include({ voice: "verse", version: 2 });
    });

    it("a changed secret variable is applied on the next start when nobody changed its site", () => {
      expect(restarted["corner-cafe"]).to.deep.equal(afterChanges["corner-cafe"]);
      expect(afterChanges["corner-cafe"]).to.include({ version: 1, token: "••••1111" });
      expect(afterEdit["corner-cafe"]).to.include({ version: 2, token: "••••2222" });
    });

    it("that start still keeps the sites changed through the API", () => {
      expect(afterEdit["nordic-home-shop"]).to.deep.equal(afterChanges["nordic-home-shop"]);
      expect(afterEdit["bright-smiles-dental"]).to.deep.equal(afterChanges["bright-smiles-dental"]);
      expect(editLog.map((line) => line.site_id).sort()).to.deep.equal([
        "bright-smiles-dental",
        "nordic-home-shop",
      ]);
    });
  });
}
