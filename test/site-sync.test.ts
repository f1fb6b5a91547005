/**
 * The git round trip of issue 3: diff, sync --dry-run, sync, a second sync, pull and prune on a
 * copy of the example sites, against the local store and against a running service over HTTP.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { installedPlugins } from "./helpers/installed-plugins.ts";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { pullCommand } from "../core/sites/sync/pull-command.ts";
import { localTarget, remoteTarget, type SiteTarget } from "../core/sites/sync/site-target.ts";
import { diffCommand, syncCommand } from "../core/sites/sync/sync-command.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const EXAMPLES = path.resolve(import.meta.dirname, "..", "sites");
const TOKEN = "tok_bright_live_5f1c9a7e2b8d4c3a";
const env = { BRIGHT_SMILES_API_TOKEN: TOKEN, NORDIC_SHOP_DB_PASSWORD: "pw-nordic-3c1d9e" };

const modes = [
  { label: "the local store", remote: false },
  { label: "a running service over HTTP", remote: true },
];
const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

for (const mode of modes) {
  describe(`sitevoice diff, sync and pull against ${mode.label}`, function () {
    let database: TestDatabase | undefined;
    let service: TestService;
    let workspaceId: string;
    let auth: { Authorization: string };
    let dir: string;
    let target: SiteTarget;
    let lines: string[];

    const options = (extra: { prune?: boolean; dryRun?: boolean } = {}) => ({
      cwd: dir,
      out: (line: string) => lines.push(line),
      rules: service.rules,
      target,
      env,
      ...extra,
    });
    const file = (name: string) => path.join(dir, "sites", name);
    const versions = async (siteId: string) =>
      (await request(service.server).get(`/v1/sites/${siteId}/versions`).set(auth).expect(200)).body
        .data as { version: number; source: string; actor: string }[];

    before(async function () {
      database = await createTestDatabase(sqlite);
      if (database === undefined) missing(this, sqlite.label);
      service = await startTestService(database.url);
      workspaceId = await service.workspace();
      const key = await service.key(workspaceId, { scopes: ["sites:read", "sites:write"] });
      auth = { Authorization: `Bearer ${key}` };
      target = mode.remote
        ? remoteTarget(service.url, key)
        : localTarget(service.sites, operatorPrincipal(workspaceId, "cli"));
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "sv-sync-"));
      fs.cpSync(EXAMPLES, path.join(dir, "sites"), { recursive: true });
    });
    beforeEach(() => {
      lines = [];
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it("diff and sync --dry-run plan three new sites and write nothing", async () => {
      expect(await diffCommand([], options())).to.equal(0);
      expect(lines).to.include("+ bright-smiles-dental  sites/bright-smiles-dental.yaml  create");
      expect(lines).to.include('    + business_name: "Bright Smiles Dental"');
      expect(lines.at(-2)).to.equal("Plan: 3 to create, 0 to update, 0 unchanged, 0 to delete.");
      // The plan shows the token masked, never in clear.
      expect(lines.join("\n")).not.to.include(TOKEN);

      lines = [];
      expect(await syncCommand([], options({ dryRun: true }))).to.equal(0);
      expect(lines.at(-1)).to.equal(`Nothing was applied to ${target.label}.`);
      expect(await target.list()).to.deep.equal([]);
    });

    it("sync creates them as versions from yaml; a second sync makes no new version", async () => {
      expect(await syncCommand([], options())).to.equal(0);
      expect(lines).to.include("created nordic-home-shop (version 1)");
      expect((await target.list()).map((s) => s.site_id).sort()).to.deep.equal([
        "bright-smiles-dental",
        "luigis-trattoria",
        "nordic-home-shop",
      ]);
      const [first] = await versions("bright-smiles-dental");
      expect(first).to.include({ version: 1, source: "yaml" });
      expect(first?.actor).to.equal(mode.remote ? first?.actor : "operator:cli");
      const site = (
        await request(service.server).get("/v1/sites/bright-smiles-dental").set(auth).expect(200)
      ).body.data;
      // Resolved from ${env:…}, stored sealed, answered masked.
      expect(site.adapter.config.auth.value).to.equal(`••••${TOKEN.slice(-4)}`);

      lines = [];
      expect(await syncCommand([], options())).to.equal(0);
      expect(lines.filter((l) => l.startsWith("= "))).to.have.length(3);
      expect(lines.at(-1)).to.equal(`Nothing to apply: ${target.label} already matches the files.`);
      expect(await versions("bright-smiles-dental")).to.have.length(1);
    });

    it("diff shows a changed field; sync applies it as version 2", async () => {
      const path_ = file("luigis-trattoria.yaml");
      fs.writeFileSync(
        path_,
        fs.readFileSync(path_, "utf8").replace(/^voice: .*$/m, "voice: verse # changed in git"),
      );
      expect(await diffCommand([], options())).to.equal(0);
      const update = lines.find((l) => l.startsWith("~ luigis-trattoria"));
      expect(update).to.match(/update \(version 1, last changed through yaml\)$/);
      expect(lines).to.include('    ~ voice: "ballad" → "verse"');
      lines = [];
      expect(await syncCommand([], options())).to.equal(0);
      expect(lines).to.include("updated luigis-trattoria (version 2)");
      expect((await versions("luigis-trattoria")).map((v) => v.version)).to.deep.equal([2, 1]);
    });

    it("pull writes API changes into the file, keeping its comments and the secret reference", async () => {
      const before = fs.readFileSync(file("bright-smiles-dental.yaml"), "utf8");
      await request(service.server)
        .patch("/v1/sites/bright-smiles-dental")
        .set(auth)
        .send({ voice: "coral", restricted_topics: ["medical diagnosis"], language: "en" })
        .expect(200);
      expect(await pullCommand([], options())).to.equal(0);
      expect(lines).to.include(
        "= luigis-trattoria  sites/luigis-trattoria.yaml  up to date (version 2)",
      );
      expect(lines).to.include('    ~ voice: "shimmer" → "coral"');
      const after = fs.readFileSync(file("bright-smiles-dental.yaml"), "utf8");
      // Only the changed lines differ: every comment and the ${env:…} reference survive.
      const changed = diff(before, after);
      expect(changed.removed).to.deep.equal([
        "language: en-US",
        "voice: shimmer",
        "  - prescription medication",
        "  - pricing of other clinics",
      ]);
      expect(changed.added).to.deep.equal(["language: en", "voice: coral"]);
      expect(after).to.include("value: ${env:BRIGHT_SMILES_API_TOKEN:-demo-token}");
      expect(after).not.to.include(TOKEN);
      for (const comment of before.split("\n").filter((l) => l.trimStart().startsWith("#"))) {
        expect(after).to.include(comment);
      }
      // The files now match the service: diff plans nothing.
      lines = [];
      expect(await diffCommand([], options())).to.equal(0);
      expect(lines.at(-2)).to.equal("Plan: 0 to create, 0 to update, 3 unchanged, 0 to delete.");
    });

    it("pull writes a site that has no file yet, with its secrets masked; sync takes it back unchanged", async () => {
      await request(service.server)
        .put("/v1/sites/corner-bakery")
        .set(auth)
        .send({
          business_name: "Corner Bakery",
          business_description: "Bread and cakes",
          domain: "cornerbakery.example",
          industry: "restaurant",
          adapter: {
            type: "rest",
            config: {
              baseUrl: "https://api.cornerbakery.example",
              auth: { type: "bearer", value: "tok_bakery_9a8b7c6d5e4f" },
              queryMode: "client-filter",
            },
            collections: { menu: { source: "/menu", display_fields: ["name", "price"] } },
          },
        })
        .expect(201);
      expect(await pullCommand([], options())).to.equal(0);
      expect(lines).to.include("+ corner-bakery  sites/corner-bakery.yaml  written (version 1)");
      const written = fs.readFileSync(file("corner-bakery.yaml"), "utf8");
      expect(written).to.include("value: ••••5e4f");
      expect(written).not.to.include("tok_bakery_9a8b7c6d5e4f");
      lines = [];
      expect(await syncCommand([], options())).to.equal(0);
      expect(lines).to.include("= corner-bakery  sites/corner-bakery.yaml  unchanged (version 1)");
    });

    it("refuses a masked secret in a file whose baseUrl now names another host, at its line", async () => {
      const path_ = file("corner-bakery.yaml");
      const original = fs.readFileSync(path_, "utf8");
      expect(original).to.include("value: ••••5e4f");
      fs.writeFileSync(
        path_,
        original.replace("https://api.cornerbakery.example", "https://collector.example"),
      );
      expect(await syncCommand([], options())).to.equal(1);
      expect(lines[0]).to.match(
        /^sites\/corner-bakery\.yaml:\d+:\d+ {2}adapter\.config\.auth\.value {2}adapter\.config\.auth\.value is masked, but the adapter now points somewhere else/,
      );
      const site = (await target.list()).find((s) => s.site_id === "corner-bakery");
      expect(site?.adapter?.config).to.deep.include({
        baseUrl: "https://api.cornerbakery.example",
      });
      fs.writeFileSync(path_, original);
    });

    it("a site whose file is gone is kept, and deleted only with --prune", async () => {
      fs.rmSync(file("corner-bakery.yaml"));
      expect(await syncCommand([], options())).to.equal(0);
      expect(lines).to.include("! corner-bakery  not in the files  kept (sync --prune deletes it)");
      expect((await target.list()).map((s) => s.site_id)).to.include("corner-bakery");
      lines = [];
      expect(await syncCommand([], options({ prune: true, dryRun: true }))).to.equal(0);
      expect(lines).to.include("- corner-bakery  not in the files  delete");
      expect((await target.list()).map((s) => s.site_id)).to.include("corner-bakery");
      lines = [];
      expect(await syncCommand([], options({ prune: true }))).to.equal(0);
      expect(lines).to.include("deleted corner-bakery");
      expect((await target.list()).map((s) => s.site_id)).not.to.include("corner-bakery");
    });

    it("refuses the whole run, at the file's line, when a secret variable is not set", async () => {
      const path_ = file("nordic-home-shop.yaml");
      const original = fs.readFileSync(path_, "utf8");
      fs.writeFileSync(
        path_,
        original.replace(":-demo}", "}").replace("Nordic Home Shop\n", "Nordic Home\n"),
      );
      const code = await syncCommand([], { ...options(), env: { BRIGHT_SMILES_API_TOKEN: TOKEN } });
      expect(code).to.equal(1);
      expect(lines[0]).to.match(
        /^sites\/nordic-home-shop\.yaml:\d+:5 {2}adapter\.config\.connectionString {2}environment variable NORDIC_SHOP_DB_PASSWORD is not set/,
      );
      expect(lines.at(-1)).to.equal("1 problem in 1 file; nothing was applied.");
      const site = (await target.list()).find((s) => s.site_id === "nordic-home-shop");
      expect(site?.business_name).to.equal("Nordic Home Shop");
      fs.writeFileSync(path_, original);
    });

    it("maps a refusal of the service to the line of the file", async () => {
      const path_ = file("luigis-trattoria.yaml");
      const original = fs.readFileSync(path_, "utf8");
      fs.writeFileSync(path_, original.replace(/^site_id: .*$/m, "site_id: taken-elsewhere"));
      const other = await service.workspace();
      await service.sites.create(operatorPrincipal(other, "test"), {
        site_id: "taken-elsewhere",
        business_name: "Other",
        business_description: "",
        domain: "other.example",
      });
      expect(await syncCommand([], options())).to.equal(1);
      expect(lines[0]).to.match(
        /^sites\/luigis-trattoria\.yaml:\d+:1 {2}site_id {2}A site with site_id 'taken-elsewhere' already exists$/,
      );
      fs.writeFileSync(path_, original);
    });
  });
}

describe("sitevoice sync --remote errors", () => {
  it("names an unreachable service and a refused key", async function () {
    const lines: string[] = [];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sv-sync-"));
    fs.cpSync(EXAMPLES, path.join(dir, "sites"), { recursive: true });
    const unreachable = remoteTarget("http://127.0.0.1:9", "vk_test_x");
    const { rules } = await installedPlugins({});
    const run = (target: SiteTarget) =>
      syncCommand([], { cwd: dir, out: (l) => lines.push(l), target, env, rules });
    expect((await rejection(run(unreachable))).message).to.match(
      /^cannot reach http:\/\/127\.0\.0\.1:9: /,
    );
    const database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    const service = await startTestService(database!.url);
    try {
      const refused = await rejection(run(remoteTarget(service.url, "vk_test_wrong")));
      expect(refused).to.include({ name: "ServiceError", code: "unauthorized" });
    } finally {
      await service.stop();
      await database?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}

/** The lines only in `before` and only in `after`, in order (enough for small edits). */
function diff(before: string, after: string) {
  const a = before.split("\n");
  const b = after.split("\n");
  return { removed: a.filter((l) => !b.includes(l)), added: b.filter((l) => !a.includes(l)) };
}

describe("npm start loads sites/ into the default workspace", function () {
  let database: TestDatabase | undefined;
  let dir: string;

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "sv-load-"));
    fs.cpSync(EXAMPLES, dir, { recursive: true });
  });
  after(async () => {
    await database?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const masterKey = crypto.randomBytes(32).toString("base64"); // the same on both starts
  const start = () =>
    startTestService(database!.url, { SITEVOICE_SITES_DIR: dir, SITEVOICE_MASTER_KEY: masterKey });
  const ids = async (service: TestService) =>
    (await localTarget(service.sites, operatorPrincipal(service.boot.workspaceId, "test")).list())
      .map((s) => s.site_id)
      .sort();

  it("applies the example files on start, changes to them on restart, never over API edits", async () => {
    let service = await start();
    try {
      expect(await ids(service)).to.deep.equal([
        "bright-smiles-dental",
        "luigis-trattoria",
        "nordic-home-shop",
      ]);
      const principal = operatorPrincipal(service.boot.workspaceId, "test");
      await service.sites.patch(principal, "nordic-home-shop", { voice: "coral" });
    } finally {
      await service.stop();
    }

    const luigis = path.join(dir, "luigis-trattoria.yaml");
    fs.writeFileSync(
      luigis,
      fs.readFileSync(luigis, "utf8").replace(/^voice: .*$/m, "voice: sage"),
    );
    fs.writeFileSync(path.join(dir, "broken.yaml"), "business_name: [unclosed\n");
    service = await start();
    try {
      const principal = operatorPrincipal(service.boot.workspaceId, "test");
      // The file changed and nobody edited the site since: applied.
      expect((await service.sites.get(principal, "luigis-trattoria")).voice).to.equal("sage");
      // Edited through the API since its file was applied: left as it is.
      expect((await service.sites.get(principal, "nordic-home-shop")).voice).to.equal("coral");
      // Unchanged file: no new version; a broken file is skipped and the service still starts.
      const versions = await service.sites.versions(principal, "bright-smiles-dental", {
        limit: 10,
      });
      expect(versions.items.map((v) => v.version)).to.deep.equal([1]);
      expect(versions.items[0]?.actor).to.equal("operator:startup");
    } finally {
      await service.stop();
    }
  });
});
