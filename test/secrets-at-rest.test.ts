/**
 * Done-when 3 of issue 3, as an operator would check it: tokens given as `${env:…}` reach the
 * store through the start-up load and through `sync --remote`, and afterwards neither token is
 * anywhere in the database files or in what the service and the CLI printed (at debug level).
 * After `secrets rotate` the sites still read back with the same secrets.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { freePort, run, runToEnd, serving, stop } from "./helpers/cli-process.ts";

const STARTUP_TOKEN = `tok_startup_${crypto.randomBytes(12).toString("hex")}`;
const SYNC_TOKEN = `tok_sync_${crypto.randomBytes(12).toString("hex")}`;

const siteFile = (siteId: string, variable: string) => `schema_version: 1
site_id: ${siteId}
business_name: ${siteId}
business_description: A site whose API token comes from the environment.
domain: ${siteId}.example
adapter:
  type: rest
  config:
    baseUrl: https://api.${siteId}.example
    auth:
      type: bearer
      value: \${env:${variable}}
    queryMode: client-filter
  collections:
    items: { source: /items, display_fields: [name] }
`;

/**
 * One scenario, run in hooks, whose outcomes the tests check: the service starts on the folder
 * (loading one file), `sync --remote` adds the other, the API reads both, the service stops; then
 * (in the nested describe) `secrets rotate` and two diffs on the new key alone. Every value a test
 * checks is taken when its hook runs, so the tests only read it.
 */
describe("secrets given as ${env:…}, at rest and in logs", function () {
  this.timeout(90_000);
  let cwd: string;
  let repo: string;
  let dataDir: string;
  let key: string | undefined;
  let serviceOutput: string;
  let synced: { code: number | null; output: string };
  let masked: Record<string, string>;
  let stopCode: number | null;
  /** Every byte the store wrote (the database, its WAL and shared-memory files), before rotating. */
  let stored: Buffer;
  /** Everything the service and the CLI printed, at debug level. */
  let printed: string;

  before(async () => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-secrets-"));
    fs.mkdirSync(path.join(cwd, "sites"));
    fs.writeFileSync(
      path.join(cwd, "sites", "loaded-at-start.yaml"),
      siteFile("loaded-at-start", "STARTUP_TOKEN"),
    );
    repo = path.join(cwd, "agency-repo");
    fs.mkdirSync(path.join(repo, "sites"), { recursive: true });
    fs.writeFileSync(
      path.join(repo, "sites", "synced-from-ci.yaml"),
      siteFile("synced-from-ci", "SYNC_TOKEN"),
    );

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const service = run(["serve"], cwd, {
      PORT: String(port),
      LOG_LEVEL: "debug",
      STARTUP_TOKEN,
    });
    try {
      await serving(service);
      key = /(vk_test_[A-Za-z0-9_-]{32})/.exec(service.output())?.[1];
      synced = await runToEnd(["sync", "--remote", url], repo, {
        SITEVOICE_API_KEY: key ?? "",
        SYNC_TOKEN,
        LOG_LEVEL: "debug",
      });
      const read = async (siteId: string) => {
        const response = await fetch(`${url}/v1/sites/${siteId}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        return (
          (await response.json()) as {
            data: { adapter: { config: { auth: { value: string } } } };
          }
        ).data.adapter.config.auth.value;
      };
      masked = {
        "loaded-at-start": await read("loaded-at-start"),
        "synced-from-ci": await read("synced-from-ci"),
      };
    } finally {
      stopCode = await stop(service);
      serviceOutput = service.output();
    }
    printed = serviceOutput + synced.output;
    dataDir = path.join(cwd, "data");
    stored = fs
      .readdirSync(dataDir)
      .map((name) => fs.readFileSync(path.join(dataDir, name)))
      .reduce((all, bytes) => Buffer.concat([all, bytes]), Buffer.alloc(0));
  });
  after(() => fs.rmSync(cwd, { recursive: true, force: true }));

  it("the service prints its first key and applies the file at start-up", () => {
    expect(key, serviceOutput).to.be.a("string");
    expect(serviceOutput).to.include('"applied":1');
  });

  it("sync --remote creates the other site", () => {
    expect(synced.code, synced.output).to.equal(0);
    expect(synced.output).to.include("created synced-from-ci (version 1)");
  });

  it("the API answers both tokens masked", () => {
    expect(masked["loaded-at-start"]).to.equal(`••••${STARTUP_TOKEN.slice(-4)}`);
    expect(masked["synced-from-ci"]).to.equal(`••••${SYNC_TOKEN.slice(-4)}`);
  });

  it("the service exits 0 on SIGTERM", () => {
    expect(stopCode).to.equal(0);
  });

  it("the data folder holds what the store wrote", () => {
    expect(stored.length).to.be.greaterThan(0);
  });

  for (const [name, token] of [
    ["the start-up token", STARTUP_TOKEN],
    ["the synced token", SYNC_TOKEN],
  ] as const) {
    it(`${name} is nowhere in the data folder`, () => {
      expect(stored.includes(token), `${token} in the data folder`).to.equal(false);
    });

    it(`${name} is nowhere in what the service and the CLI printed`, () => {
      expect(printed.includes(token), `${token} in the output`).to.equal(false);
    });
  }

  describe("after secrets rotate", () => {
    let newKey: string;
    let rotated: { code: number | null; output: string };
    let diffed: { code: number | null; output: string };
    let wrongToken: { code: number | null; output: string };

    before(async () => {
      // Rotate to a new master key; the old one (generated into data/) only opens old seals.
      const oldKey = fs.readFileSync(path.join(dataDir, "master.key"), "utf8").trim();
      newKey = crypto.randomBytes(32).toString("base64");
      const rotateEnv = { SITEVOICE_MASTER_KEY: newKey, SITEVOICE_OLD_MASTER_KEYS: oldKey };
      rotated = await runToEnd(["secrets", "rotate"], cwd, rotateEnv);
      const onNewKey = { SITEVOICE_DATA_DIR: dataDir, SITEVOICE_MASTER_KEY: newKey };
      diffed = await runToEnd(["diff", "sites"], repo, { ...onNewKey, SYNC_TOKEN });
      wrongToken = await runToEnd(["diff", "sites"], repo, {
        ...onNewKey,
        SYNC_TOKEN: `${SYNC_TOKEN}x`,
      });
    });

    it("re-sealed both sites and their versions", () => {
      expect(rotated.code, rotated.output).to.equal(0);
      expect(rotated.output).to.match(
        /^re-sealed 2 sites, 2 versions, 0 open sessions, 0 events, 0 webhook endpoints, 0 user-data values, 0 OAuth connections and 0 workspace visitor-ID keys under key /m,
      );
    });

    // With only the new key, both sites read back, and their secrets still equal the files'
    // resolved values: a diff finds nothing to change.
    it("keeps the token readable: with the new key alone, diff finds the site unchanged", () => {
      expect(diffed.code, diffed.output).to.equal(0);
      expect(diffed.output).to.include(
        "= synced-from-ci  sites/synced-from-ci.yaml  unchanged (version 1)",
      );
    });

    it("with the new key alone, diff sees another token as a change", () => {
      expect(wrongToken.output).to.include("~ adapter.config.auth.value");
    });
  });
});
