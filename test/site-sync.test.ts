/**
 * The git round trip of issue 3: diff, sync --dry-run, sync, a second sync, pull and prune on a
 * copy of the example sites, against the local store and against a running service over HTTP.
 * Every test gets a fresh store, service and copy of the files (site ids are unique across
 * workspaces), and its hooks build the state it starts from, so each runs alone with --grep.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { installedPlugins } from "./helpers/installed-plugins.ts";
import type { InstalledPlugins } from "../core/compose.ts";
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

/** For hooks: a command that must succeed, else the lines it wrote. */
function succeeded(code: number, lines: string[]): void {
  if (code !== 0) throw new Error(`the command failed (${code}):\n${lines.join("\n")}`);
}

for (const mode of modes) {
  describe(`sitevoice diff, sync and pull against ${mode.label}`, function () {
    let database: TestDatabase | undefined;
    let service: TestService;
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

    beforeEach(async function () {
      database = await createTestDatabase(sqlite);
      if (database === undefined) missing(this, sqlite.label);
      service = await startTestService(database.url);
      const workspaceId = await service.workspace();
      const key = await service.key(workspaceId, { scopes: ["sites:read", "sites:write"] });
      auth = { Authorization: `Bearer ${key}` };
      target = mode.remote
        ? remoteTarget(service.url, key)
        : localTarget(service.sites, operatorPrincipal(workspaceId, "cli"));
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "sv-sync-"));
      fs.cpSync(EXAMPLES, path.join(dir, "sites"), { recursive: true });
      lines = [];
    });
    afterEach(async () => {
      await service?.stop();
      await database?.drop();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it("diff plans three new sites, showing their fields and the token masked", async () => {
      expect(await diffCommand([], options())).to.equal(0);
      expect(lines).to.include("+ bright-smiles-dental  sites/bright-smiles-dental.yaml  create");
      expect(lines).to.include('    + business_name: "Bright Smiles Dental"');
      expect(lines.at(-2)).to.equal("Plan: 3 to create, 0 to update, 0 unchanged, 0 to delete.");
      // The plan shows the token masked, never in clear.
      expect(lines.join("\n")).not.to.include(TOKEN);
    });

    it("sync --dry-run writes nothing", async () => {
      expect(await syncCommand([], options({ dryRun: true }))).to.equal(0);
      expect(lines.at(-1)).to.equal(`Nothing was applied to ${target.label}.`);
      expect(await target.list()).to.deep.equal([]);
    });

    it("sync creates them as version 1 from yaml, the token resolved and answered masked", async () => {
      expect(await syncCommand([], options())).to.equal(0);
      expect(lines).to.include("created nordic-home-shop (version 1)");
      expect((await target.list()).map((s) => s.site_id).sort()).to.deep.equal([
        "bright-smiles-dental",
        "luigis-trattoria",
        "nordic-home-shop",
      ]);
      const [first] = await versions("bright-smiles-dental");
      expect(first).to.include({ version: 1, source: "yaml" });
      // Through the API, the key that synced; in process, the operator's CLI.
      expect(first?.actor).to.match(mode.remote ? /^api_key:\S+$/ : /^operator:cli$/);
      const site = (
        await request(service.server).get("/v1/sites/bright-smiles-dental").set(auth).expect(200)
      ).body.data;
      // Resolved from ${env:…}, stored sealed, answered masked.
      expect(site.adapter.config.auth.value).to.equal(`••••${TOKEN.slice(-4)}`);
    });

    it("names every domain another site holds, each at its own line, and applies nothing", async () => {
      await request(service.server)
        .post("/v1/sites")
        .set(auth)
        .send({
          site_id: "holder",
          business_name: "Holder",
          business_description: "",
          domain: "luigistrattoria.example",
          additional_domains: ["www.luigistrattoria.example"],
        })
        .expect(201);
      expect(await syncCommand([], options())).to.equal(1);
      const holds = (domain: string) =>
        `Domain ${domain} already belongs to site 'holder' of this workspace`;
      expect(lines.filter((line) => line.startsWith("sites/luigis-trattoria.yaml:"))).to.deep.equal(
        [
          `sites/luigis-trattoria.yaml:18:22  additional_domains.0  ${holds("luigistrattoria.example")}`,
          `sites/luigis-trattoria.yaml:18:47  additional_domains.1  ${holds("www.luigistrattoria.example")}`,
        ],
      );
      expect((await target.list()).map((site) => site.site_id)).to.deep.equal(["holder"]);
    });

    describe("after a sync of the files", () => {
      beforeEach(async () => {
        succeeded(await syncCommand([], options()), lines);
        lines = [];
      });

      it("a second sync applies nothing and makes no new version", async () => {
        expect(await syncCommand([], options())).to.equal(0);
        expect(lines.filter((l) => l.startsWith("= "))).to.have.length(3);
        expect(lines.at(-1)).to.equal(
          `Nothing to apply: ${target.label} already matches the files.`,
        );
        expect(await versions("bright-smiles-dental")).to.have.length(1);
      });

      it("refuses the whole run, at the file's line, when a secret variable is not set", async () => {
        const path_ = file("nordic-home-shop.yaml");
        const original = fs.readFileSync(path_, "utf8");
        fs.writeFileSync(
          path_,
          original.replace(":-demo}", "}").replace("Nordic Home Shop\n", "Nordic Home\n"),
        );
        const code = await syncCommand([], {
          ...options(),
          env: { BRIGHT_SMILES_API_TOKEN: TOKEN },
        });
        expect(code).to.equal(1);
        expect(lines[0]).to.match(
          /^sites\/nordic-home-shop\.yaml:\d+:5 {2}adapter\.config\.connectionString {2}environment variable NORDIC_SHOP_DB_PASSWORD is not set/,
        );
        expect(lines.at(-1)).to.equal("1 problem in 1 file; nothing was applied.");
        const site = (await target.list()).find((s) => s.site_id === "nordic-home-shop");
        expect(site?.business_name).to.equal("Nordic Home Shop");
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
      });

      describe("and a field changed in a file", () => {
        beforeEach(() => {
          const path_ = file("luigis-trattoria.yaml");
          fs.writeFileSync(
            path_,
            fs.readFileSync(path_, "utf8").replace(/^voice: .*$/m, "voice: verse # changed in git"),
          );
        });

        it("diff shows the changed field", async () => {
          expect(await diffCommand([], options())).to.equal(0);
          const update = lines.find((l) => l.startsWith("~ luigis-trattoria"));
          expect(update).to.match(/update \(version 1, last changed through yaml\)$/);
          expect(lines).to.include('    ~ voice: "ballad" → "verse"');
        });

        it("sync applies it as version 2", async () => {
          expect(await syncCommand([], options())).to.equal(0);
          expect(lines).to.include("updated luigis-trattoria (version 2)");
          expect((await versions("luigis-trattoria")).map((v) => v.version)).to.deep.equal([2, 1]);
        });
      });

      describe("of a file that leaves out a field its adapter plugin defaults", () => {
        let written: string;

        beforeEach(async () => {
          const text = fs.readFileSync(file("bright-smiles-dental.yaml"), "utf8");
          written = text.replace(/^ *queryMode: querystring\n/m, "");
          expect(written).not.to.equal(text);
          fs.writeFileSync(file("bright-smiles-dental.yaml"), written);
          succeeded(await syncCommand([], options()), lines);
          lines = [];
        });

        it("pull finds the site up to date and leaves the file as written", async () => {
          expect(await pullCommand([], options())).to.equal(0);
          expect(lines, lines.join("\n")).to.include(
            "= bright-smiles-dental  sites/bright-smiles-dental.yaml  up to date (version 1)",
          );
          expect(fs.readFileSync(file("bright-smiles-dental.yaml"), "utf8")).to.equal(written);
        });
      });

      describe("and a change through the API, pulled", () => {
        let original: string;
        let pullCode: number;
        let pulled: string[];

        beforeEach(async () => {
          original = fs.readFileSync(file("bright-smiles-dental.yaml"), "utf8");
          await request(service.server)
            .patch("/v1/sites/bright-smiles-dental")
            .set(auth)
            .send({ voice: "coral", restricted_topics: ["medical diagnosis"], language: "en" })
            .expect(200);
          pullCode = await pullCommand([], options());
          pulled = lines;
          lines = [];
        });

        it("pull reports the changed fields and the sites already up to date", () => {
          expect(pullCode).to.equal(0);
          expect(pulled).to.include(
            "= luigis-trattoria  sites/luigis-trattoria.yaml  up to date (version 1)",
          );
          expect(pulled).to.include('    ~ voice: "shimmer" → "coral"');
        });

        it("pull changes only the changed lines, keeping every comment and the secret reference", () => {
          const after = fs.readFileSync(file("bright-smiles-dental.yaml"), "utf8");
          const changed = diff(original, after);
          expect(changed.removed).to.deep.equal([
            "language: en-US",
            "voice: shimmer",
            "  - prescription medication",
            "  - pricing of other clinics",
          ]);
          expect(changed.added).to.deep.equal(["language: en", "voice: coral"]);
          expect(after).to.include("value: ${env:BRIGHT_SMILES_API_TOKEN:-demo-token}");
          expect(after).not.to.include(TOKEN);
          const comments = original.split("\n").filter((l) => l.trimStart().startsWith("#"));
          expect(after.split("\n")).to.include.members(comments);
        });

        it("after the pull, diff plans nothing: the files match the service", async () => {
          expect(await diffCommand([], options())).to.equal(0);
          expect(lines.at(-2)).to.equal(
            "Plan: 0 to create, 0 to update, 3 unchanged, 0 to delete.",
          );
        });
      });

      describe("and a site created through the API, pulled into a file of its own", () => {
        let pullCode: number;
        let pulled: string[];

        beforeEach(async () => {
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
          pullCode = await pullCommand([], options());
          pulled = lines;
          lines = [];
        });

        it("pull writes the site's file, with its secrets masked", () => {
          expect(pullCode).to.equal(0);
          expect(pulled).to.include(
            "+ corner-bakery  sites/corner-bakery.yaml  written (version 1)",
          );
          const written = fs.readFileSync(file("corner-bakery.yaml"), "utf8");
          expect(written).to.include("value: ••••5e4f");
          expect(written).not.to.include("tok_bakery_9a8b7c6d5e4f");
        });

        it("sync takes the written file back unchanged", async () => {
          expect(await syncCommand([], options())).to.equal(0);
          expect(lines).to.include(
            "= corner-bakery  sites/corner-bakery.yaml  unchanged (version 1)",
          );
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
        });

        describe("whose file is then removed", () => {
          beforeEach(() => {
            fs.rmSync(file("corner-bakery.yaml"));
          });

          it("sync keeps the site", async () => {
            expect(await syncCommand([], options())).to.equal(0);
            expect(lines).to.include(
              "! corner-bakery  not in the files  kept (sync --prune deletes it)",
            );
            expect((await target.list()).map((s) => s.site_id)).to.include("corner-bakery");
          });

          it("sync --prune --dry-run plans its delete and keeps it", async () => {
            expect(await syncCommand([], options({ prune: true, dryRun: true }))).to.equal(0);
            expect(lines).to.include("- corner-bakery  not in the files  delete");
            expect((await target.list()).map((s) => s.site_id)).to.include("corner-bakery");
          });

          it("sync --prune deletes it", async () => {
            expect(await syncCommand([], options({ prune: true }))).to.equal(0);
            expect(lines).to.include("deleted corner-bakery");
            expect((await target.list()).map((s) => s.site_id)).not.to.include("corner-bakery");
          });
        });
      });
    });
  });
}

describe("sitevoice sync --remote errors", () => {
  let lines: string[];
  let dir: string;
  let rules: InstalledPlugins["rules"];
  const run = (target: SiteTarget) =>
    syncCommand([], { cwd: dir, out: (l) => lines.push(l), target, env, rules });

  before(async () => {
    ({ rules } = await installedPlugins({}));
  });
  beforeEach(() => {
    lines = [];
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "sv-sync-"));
    fs.cpSync(EXAMPLES, path.join(dir, "sites"), { recursive: true });
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("names an unreachable service", async () => {
    const unreachable = remoteTarget("http://127.0.0.1:9", "vk_test_x");
    expect((await rejection(run(unreachable))).message).to.match(
      /^cannot reach http:\/\/127\.0\.0\.1:9: /,
    );
  });

  describe("against a running service", () => {
    let database: TestDatabase | undefined;
    let service: TestService;

    before(async function () {
      database = await createTestDatabase(sqlite);
      if (database === undefined) missing(this, sqlite.label);
      service = await startTestService(database.url);
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    it("names a refused key", async () => {
      const refused = await rejection(run(remoteTarget(service.url, "vk_test_wrong")));
      expect(refused).to.include({ name: "ServiceError", code: "unauthorized" });
    });
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

/**
 * One scenario, in the hooks: a first start on the example files, an edit through the API, then
 * a file changed, a broken file added and a restart. The tests read what each start left.
 */
describe("npm start loads sites/ into the default workspace", function () {
  let database: TestDatabase | undefined;
  let dir: string;
  let firstIds: string[];
  let restarted: TestService | undefined;

  const masterKey = crypto.randomBytes(32).toString("base64"); // the same on both starts
  const start = () =>
    startTestService(database!.url, { SITEVOICE_SITES_DIR: dir, SITEVOICE_MASTER_KEY: masterKey });
  const ids = async (service: TestService) =>
    (await localTarget(service.sites, operatorPrincipal(service.boot.workspaceId, "test")).list())
      .map((s) => s.site_id)
      .sort();

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "sv-load-"));
    fs.cpSync(EXAMPLES, dir, { recursive: true });

    const first = await start();
    try {
      firstIds = await ids(first);
      const principal = operatorPrincipal(first.boot.workspaceId, "test");
      await first.sites.patch(principal, "nordic-home-shop", { voice: "coral" });
    } finally {
      await first.stop();
    }

    const luigis = path.join(dir, "luigis-trattoria.yaml");
    fs.writeFileSync(
      luigis,
      fs.readFileSync(luigis, "utf8").replace(/^voice: .*$/m, "voice: sage"),
    );
    fs.writeFileSync(path.join(dir, "broken.yaml"), "business_name: [unclosed\n");
    restarted = await start();
  });
  after(async () => {
    await restarted?.stop();
    await database?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const principal = () => operatorPrincipal(restarted!.boot.workspaceId, "test");

  it("applies the example files on the first start", () => {
    expect(firstIds).to.deep.equal([
      "bright-smiles-dental",
      "luigis-trattoria",
      "nordic-home-shop",
    ]);
  });

  it("applies a file changed since on restart, when nobody edited its site", async () => {
    expect((await restarted!.sites.get(principal(), "luigis-trattoria")).voice).to.equal("sage");
  });

  it("leaves a site edited through the API since its file was applied as it is", async () => {
    expect((await restarted!.sites.get(principal(), "nordic-home-shop")).voice).to.equal("coral");
  });

  it("makes no new version of a site whose file did not change", async () => {
    const versions = await restarted!.sites.versions(principal(), "bright-smiles-dental", {
      limit: 10,
    });
    expect(versions.items.map((v) => v.version)).to.deep.equal([1]);
    expect(versions.items[0]?.actor).to.equal("operator:startup");
  });

  it("skips a broken file and still starts, with the other sites", async () => {
    expect(await ids(restarted!)).to.deep.equal([
      "bright-smiles-dental",
      "luigis-trattoria",
      "nordic-home-shop",
    ]);
  });
});
