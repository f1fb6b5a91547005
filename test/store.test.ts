/** The same migrations and repositories on SQLite, PostgreSQL and MariaDB. */
import { expect } from "chai";
import { migrate, openDatabase } from "../core/store/database.ts";
import type { SiteRow } from "../core/store/repos/sites-repo.ts";
import { isUniqueViolation } from "../core/store/store-errors.ts";
import { Store } from "../core/store/store.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { loadSettings } from "../core/settings.ts";

const site = (n: number, workspace: string, extra: Partial<SiteRow> = {}): SiteRow => ({
  site_id: `site-${n}`,
  workspace_id: workspace,
  business_name: `Shop ${n}${n === 2 ? " 100%_off" : ""}`,
  domain: `shop${n}.example`,
  config: JSON.stringify({ n }),
  version: 1,
  content_hash: "h".repeat(64),
  created_at: 1_700_000_000_000 + Math.floor(n / 2), // pairs share a timestamp: ties break by id
  updated_at: 1_700_000_000_000,
  ...extra,
});

for (const target of databaseTargets) {
  describe(`store on ${target.label}`, function () {
    let database: TestDatabase | undefined;
    let store: Store;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      store = new Store(openDatabase(loadSettings({ DATABASE_URL: database.url }).database));
    });
    after(async () => {
      await store?.close();
      await database?.drop();
    });

    it("migrates once and is a no-op the second time", async () => {
      expect(await migrate(store.db)).to.deep.equal([
        "001-accounts",
        "002-sites",
        "003-widget",
        "004-hardening",
      ]);
      expect(await migrate(store.db)).to.deep.equal([]);
    });

    it("keeps workspaces and finds the first", async () => {
      await store.workspaces.insert({ id: "ws_b", name: "B", plan: "pro", created_at: 2 });
      await store.workspaces.insert({ id: "ws_a", name: "A", plan: "free", created_at: 1 });
      expect(await store.workspaces.get("ws_b")).to.deep.equal({
        id: "ws_b",
        name: "B",
        plan: "pro",
        created_at: 2,
      });
      expect((await store.workspaces.first())?.id).to.equal("ws_a");
      expect(await store.workspaces.get("ws_zzz")).to.equal(undefined);
    });

    it("stores API keys by hash, touches and revokes them", async () => {
      const row = {
        id: "key_1",
        workspace_id: "ws_a",
        name: "ci",
        mode: "live" as const,
        last4: "abcd",
        key_hash: "f".repeat(64),
        scopes: '["sites:read"]',
        site_ids: null,
        created_at: 10,
        last_used_at: null,
        revoked_at: null,
      };
      await store.apiKeys.insert(row);
      expect(await store.apiKeys.findByHash("f".repeat(64))).to.deep.equal(row);
      await store.apiKeys.touch("key_1", 100_000);
      await store.apiKeys.touch("key_1", 100_001); // within a minute: not written again
      expect((await store.apiKeys.findByHash("f".repeat(64)))?.last_used_at).to.equal(100_000);
      expect(await store.apiKeys.countActive("ws_a")).to.equal(1);
      expect(await store.apiKeys.revoke("ws_b", "key_1", 5)).to.equal(false); // other workspace
      expect(await store.apiKeys.revoke("ws_a", "key_1", 5)).to.equal(true);
      expect(await store.apiKeys.revoke("ws_a", "key_1", 6)).to.equal(false);
      expect((await store.apiKeys.findByHash("f".repeat(64)))?.revoked_at).to.equal(5);
      let error: unknown;
      await store.apiKeys.insert({ ...row, id: "key_2" }).catch((e: unknown) => (error = e));
      expect(isUniqueViolation(error)).to.equal(true);
    });

    it("lists sites by keyset, filters by text and id, and counts them", async () => {
      for (const n of [1, 2, 3, 4, 5]) await store.sites.insert(site(n, "ws_a"));
      await store.sites.insert(site(9, "ws_b"));
      const page1 = await store.sites.list("ws_a", { limit: 2 });
      expect(page1.map((r) => r.site_id)).to.deep.equal(["site-1", "site-2"]);
      const last = page1[1]!;
      const page2 = await store.sites.list("ws_a", {
        limit: 10,
        after: { created_at: last.created_at, site_id: last.site_id },
      });
      expect(page2.map((r) => r.site_id)).to.deep.equal(["site-3", "site-4", "site-5"]);
      expect(
        (await store.sites.list("ws_a", { limit: 10, q: "100%_" })).map((r) => r.site_id),
      ).to.deep.equal(["site-2"]);
      expect(
        (await store.sites.list("ws_a", { limit: 10, q: "SHOP3.EX" })).map((r) => r.site_id),
      ).to.deep.equal(["site-3"]);
      expect(
        (await store.sites.list("ws_a", { limit: 10, q: "%" })).map((r) => r.site_id),
      ).to.deep.equal(["site-2"]);
      expect(
        (await store.sites.list("ws_a", { limit: 10, siteIds: ["site-4", "site-9"] })).map(
          (r) => r.site_id,
        ),
      ).to.deep.equal(["site-4"]);
      expect(await store.sites.countByWorkspace("ws_a")).to.equal(5);
    });

    it("updates only from the expected version and cascades versions on delete", async () => {
      const row = site(1, "ws_a");
      await store.sites.insertVersion({
        site_id: "site-1",
        version: 1,
        config: row.config,
        content_hash: row.content_hash,
        source: "api",
        actor: "t",
        created_at: 1,
      });
      const fields = {
        business_name: "New",
        domain: row.domain,
        config: "{}",
        version: 2,
        content_hash: "x".repeat(64),
        updated_at: 2,
      };
      expect(await store.sites.update("site-1", 1, fields)).to.equal(true);
      expect(await store.sites.update("site-1", 1, { ...fields, version: 3 })).to.equal(false);
      expect((await store.sites.get("site-1"))?.business_name).to.equal("New");
      expect(await store.sites.listVersions("site-1")).to.have.length(1);
      expect(await store.sites.delete("site-1")).to.equal(true);
      expect(await store.sites.listVersions("site-1")).to.deep.equal([]);
      expect(await store.sites.delete("site-1")).to.equal(false);
    });

    it("writes a transaction whole or not at all", async () => {
      let error: unknown;
      await store
        .transaction(async (tx) => {
          await tx.sites.insert(site(7, "ws_a"));
          await tx.sites.insert(site(7, "ws_a")); // duplicate key: the whole transaction rolls back
        })
        .catch((e: unknown) => (error = e));
      expect(isUniqueViolation(error)).to.equal(true);
      expect(await store.sites.get("site-7")).to.equal(undefined);
    });
  });
}
