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

describe("secrets given as ${env:…}, at rest and in logs", function () {
  this.timeout(90_000);
  let cwd: string;
  let repo: string;

  before(() => {
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
  });
  after(() => fs.rmSync(cwd, { recursive: true, force: true }));

  it("never stores or prints the token in plain text, and rotation keeps it readable", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    let printed = "";
    const service = run(["serve"], cwd, {
      PORT: String(port),
      LOG_LEVEL: "debug",
      STARTUP_TOKEN,
    });
    await serving(service);
    const key = /(vk_test_[A-Za-z0-9_-]{32})/.exec(service.output())?.[1] as string;
    expect(key, service.output()).to.be.a("string");
    expect(service.output()).to.include('"applied":1');

    const synced = await runToEnd(["sync", "--remote", url], repo, {
      SITEVOICE_API_KEY: key,
      SYNC_TOKEN,
      LOG_LEVEL: "debug",
    });
    expect(synced.code, synced.output).to.equal(0);
    expect(synced.output).to.include("created synced-from-ci (version 1)");

    const read = async (siteId: string) => {
      const response = await fetch(`${url}/v1/sites/${siteId}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return (
        (await response.json()) as { data: { adapter: { config: { auth: { value: string } } } } }
      ).data.adapter.config.auth.value;
    };
    expect(await read("loaded-at-start")).to.equal(`••••${STARTUP_TOKEN.slice(-4)}`);
    expect(await read("synced-from-ci")).to.equal(`••••${SYNC_TOKEN.slice(-4)}`);
    expect(await stop(service)).to.equal(0);
    printed += service.output() + synced.output;

    // Every byte the store wrote: the database, its WAL and shared-memory files.
    const dataDir = path.join(cwd, "data");
    const stored = fs
      .readdirSync(dataDir)
      .map((name) => fs.readFileSync(path.join(dataDir, name)))
      .reduce((all, bytes) => Buffer.concat([all, bytes]), Buffer.alloc(0));
    expect(stored.length).to.be.greaterThan(0);
    for (const token of [STARTUP_TOKEN, SYNC_TOKEN]) {
      expect(stored.includes(token), `${token} in the data folder`).to.equal(false);
      expect(printed.includes(token), `${token} in the output`).to.equal(false);
    }

    // Rotate to a new master key; the old one (generated into data/) only opens old seals.
    const oldKey = fs.readFileSync(path.join(dataDir, "master.key"), "utf8").trim();
    const newKey = crypto.randomBytes(32).toString("base64");
    const rotateEnv = { SITEVOICE_MASTER_KEY: newKey, SITEVOICE_OLD_MASTER_KEYS: oldKey };
    const rotated = await runToEnd(["secrets", "rotate"], cwd, rotateEnv);
    expect(rotated.code, rotated.output).to.equal(0);
    expect(rotated.output).to.match(
      /^re-sealed 2 sites, 2 versions, 0 open sessions and 0 events under key /m,
    );

    // With only the new key, both sites read back, and their secrets still equal the files'
    // resolved values: a diff finds nothing to change.
    const diffed = await runToEnd(["diff", "sites"], repo, {
      SITEVOICE_DATA_DIR: dataDir,
      SITEVOICE_MASTER_KEY: newKey,
      SYNC_TOKEN,
    });
    expect(diffed.code, diffed.output).to.equal(0);
    expect(diffed.output).to.include(
      "= synced-from-ci  sites/synced-from-ci.yaml  unchanged (version 1)",
    );
    const wrongToken = await runToEnd(["diff", "sites"], repo, {
      SITEVOICE_DATA_DIR: dataDir,
      SITEVOICE_MASTER_KEY: newKey,
      SYNC_TOKEN: `${SYNC_TOKEN}x`,
    });
    expect(wrongToken.output).to.include("~ adapter.config.auth.value");
  });
});
