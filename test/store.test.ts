/**
 * The same migrations and repositories on SQLite, PostgreSQL and MariaDB. The migration test has
 * a new database of its own; the others share one migrated store, and every test there writes
 * rows under ids of its own (workspaces, keys, sites), made in hooks, so none sees another's.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import { migrate, openDatabase } from "../core/store/database.ts";
import type { ApiKeyRow } from "../core/store/repos/api-keys-repo.ts";
import type { SiteRow } from "../core/store/repos/sites-repo.ts";
import { isUniqueViolation } from "../core/store/store-errors.ts";
import { Store } from "../core/store/store.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type DatabaseTarget,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { loadSettings } from "../core/settings.ts";

/** Site `n` of `workspace`; `prefix` makes its id this test's own. */
const site = (
  prefix: string,
  n: number,
  workspace: string,
  extra: Partial<SiteRow> = {},
): SiteRow => ({
  site_id: `${prefix}site-${n}`,
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

/** A new database and a store on it, not migrated. */
async function newStore(
  context: Mocha.Context,
  target: DatabaseTarget,
): Promise<{ database: TestDatabase; store: Store }> {
  const database = await createTestDatabase(target);
  if (database === undefined) missing(context, target.label);
  const store = new Store(openDatabase(loadSettings({ DATABASE_URL: database.url }).database));
  return { database, store };
}

for (const target of databaseTargets) {
  describe(`store on ${target.label}`, function () {
    describe("a new database", () => {
      let database: TestDatabase | undefined;
      let store: Store | undefined;

      beforeEach(async function () {
        ({ database, store } = await newStore(this, target));
      });
      afterEach(async () => {
        await store?.close();
        await database?.drop();
      });

      it("migrates once and is a no-op the second time", async () => {
        expect(await migrate(store!.db)).to.deep.equal([
          "001-accounts",
          "002-sites",
          "003-widget",
          "004-hardening",
          "005-workspace-contact",
          "006-jobs",
          "007-webhooks",
          "008-intelligence",
          "009-usage-rollups",
          "010-retention-indexes",
          "011-usage-thresholds",
          "012-usage-stream-index",
          "013-usage-day-rollups",
          "014-deleted-sites",
          "015-voice-calls",
          "016-call-control",
          "017-user-data",
          "018-dashboard-sessions",
          "019-oauth",
          "020-usage-stream-heads",
          "021-address-proof",
          "022-workspace-secrets",
          "023-site-knowledge",
          "024-knowledge-vectors",
          "025-callback-leads",
        ]);
        expect(await migrate(store!.db)).to.deep.equal([]);
      });

      if (target.client === "sqlite") {
        // Acknowledged writes survive the process crashing; README, "Store" says what is promised.
        it("keeps a SQLite file in WAL with synchronous NORMAL from the start", async () => {
          const pragmas = async () => ({
            journal: ((await store!.db.knex.raw("pragma journal_mode")) as object[])[0],
            synchronous: ((await store!.db.knex.raw("pragma synchronous")) as object[])[0],
          });
          const expected = { journal: { journal_mode: "wal" }, synchronous: { synchronous: 1 } };
          expect(await pragmas()).to.deep.equal(expected);
          await migrate(store!.db);
          expect(await pragmas()).to.deep.equal(expected);
        });
      }
    });

    describe("a migrated store", () => {
      let database: TestDatabase | undefined;
      let store: Store;
      /** This test's own prefix for ids. */
      let p: string;

      before(async function () {
        ({ database, store } = await newStore(this, target));
        await migrate(store.db);
      });
      beforeEach(() => {
        p = `t${crypto.randomBytes(4).toString("hex")}-`;
      });
      after(async () => {
        await store?.close();
        await database?.drop();
      });

      // The only workspaces created at 1 and 2: every other test's are created at 100.
      it("keeps workspaces and finds the first", async () => {
        await store.workspaces.insert({ id: "ws_b", name: "B", plan: "pro", created_at: 2 });
        await store.workspaces.insert({ id: "ws_a", name: "A", plan: "free", created_at: 1 });
        expect(await store.workspaces.get("ws_b")).to.deep.equal({
          id: "ws_b",
          name: "B",
          plan: "pro",
          created_at: 2,
          contact_email: null,
        });
        expect((await store.workspaces.first())?.id).to.equal("ws_a");
        expect(await store.workspaces.get("ws_zzz")).to.equal(undefined);
      });

      describe("with two workspaces", () => {
        let wsA: string;
        let wsB: string;

        beforeEach(async () => {
          wsA = `ws_${p}a`;
          wsB = `ws_${p}b`;
          await store.workspaces.insert({ id: wsB, name: "B", plan: "pro", created_at: 100 });
          await store.workspaces.insert({ id: wsA, name: "A", plan: "free", created_at: 100 });
        });

        describe("and an API key of the first", () => {
          let row: ApiKeyRow;
          let hash: string;

          beforeEach(async () => {
            hash = crypto.randomBytes(32).toString("hex");
            row = {
              id: `key_${p}1`,
              workspace_id: wsA,
              name: "ci",
              mode: "live" as const,
              last4: "abcd",
              key_hash: hash,
              scopes: '["sites:read"]',
              site_ids: null,
              created_at: 10,
              last_used_at: null,
              revoked_at: null,
            };
            await store.apiKeys.insert(row);
          });

          it("finds the key by its hash", async () => {
            expect(await store.apiKeys.findByHash(hash)).to.deep.equal(row);
          });

          it("touches it at most once a minute", async () => {
            await store.apiKeys.touch(row.id, 100_000);
            await store.apiKeys.touch(row.id, 100_001); // within a minute: not written again
            expect((await store.apiKeys.findByHash(hash))?.last_used_at).to.equal(100_000);
          });

          it("counts the workspace's active keys", async () => {
            expect(await store.apiKeys.countActive(wsA)).to.equal(1);
          });

          it("revokes it once, and only in its own workspace", async () => {
            expect(await store.apiKeys.revoke(wsB, row.id, 5)).to.equal(false); // other workspace
            expect(await store.apiKeys.revoke(wsA, row.id, 5)).to.equal(true);
            expect(await store.apiKeys.revoke(wsA, row.id, 6)).to.equal(false);
            expect((await store.apiKeys.findByHash(hash))?.revoked_at).to.equal(5);
          });

          it("refuses a second key with the same hash", async () => {
            let error: unknown;
            await store.apiKeys
              .insert({ ...row, id: `key_${p}2` })
              .catch((e: unknown) => (error = e));
            expect(isUniqueViolation(error)).to.equal(true);
          });
        });

        describe("and five sites in the first, one in the second", () => {
          const ids = (rows: SiteRow[]) => rows.map((r) => r.site_id.slice(p.length));

          beforeEach(async () => {
            for (const n of [1, 2, 3, 4, 5]) await store.sites.insert(site(p, n, wsA));
            await store.sites.insert(site(p, 9, wsB));
          });

          it("lists sites by keyset", async () => {
            const page1 = await store.sites.list(wsA, { limit: 2 });
            expect(ids(page1)).to.deep.equal(["site-1", "site-2"]);
            const last = page1[1]!;
            const page2 = await store.sites.list(wsA, {
              limit: 10,
              after: { created_at: last.created_at, site_id: last.site_id },
            });
            expect(ids(page2)).to.deep.equal(["site-3", "site-4", "site-5"]);
          });

          it("filters by text, with % and _ taken as themselves", async () => {
            expect(ids(await store.sites.list(wsA, { limit: 10, q: "100%_" }))).to.deep.equal([
              "site-2",
            ]);
            expect(ids(await store.sites.list(wsA, { limit: 10, q: "%" }))).to.deep.equal([
              "site-2",
            ]);
          });

          it("filters by text on the domain, ignoring case", async () => {
            expect(ids(await store.sites.list(wsA, { limit: 10, q: "SHOP3.EX" }))).to.deep.equal([
              "site-3",
            ]);
          });

          it("filters by site ids, within the workspace", async () => {
            expect(
              ids(
                await store.sites.list(wsA, {
                  limit: 10,
                  siteIds: [`${p}site-4`, `${p}site-9`],
                }),
              ),
            ).to.deep.equal(["site-4"]);
          });

          it("counts the workspace's sites", async () => {
            expect(await store.sites.countByWorkspace(wsA)).to.equal(5);
          });
        });

        describe("and a site with one version", () => {
          let row: SiteRow;
          let siteId: string;
          const fields = () => ({
            business_name: "New",
            domain: row.domain,
            config: "{}",
            version: 2,
            content_hash: "x".repeat(64),
            updated_at: 2,
          });

          beforeEach(async () => {
            row = site(p, 1, wsA);
            siteId = row.site_id;
            await store.sites.insert(row);
            await store.sites.insertVersion({
              site_id: siteId,
              version: 1,
              config: row.config,
              content_hash: row.content_hash,
              source: "api",
              actor: "t",
              created_at: 1,
            });
          });

          it("updates only from the expected version", async () => {
            expect(await store.sites.update(siteId, 1, fields())).to.equal(true);
            expect(await store.sites.update(siteId, 1, { ...fields(), version: 3 })).to.equal(
              false,
            );
            expect((await store.sites.get(siteId))?.business_name).to.equal("New");
          });

          it("keeps a transcript once per replay key, with one statement a write", async () => {
            const transcript = {
              id: `trn_${p}1`,
              site_id: siteId,
              session_id: "ses_1",
              user_fingerprint: "f".repeat(64),
              turns: "[]",
              page_url: null,
              replay_key: "r".repeat(64),
              created_at: 1,
              expires_at: 2,
            };
            const statements: string[] = [];
            const count = (query: { sql: string }) => statements.push(query.sql);
            store.db.knex.on("query", count);
            try {
              await store.leads.insertTranscriptOnce(transcript);
              await store.leads.insertTranscriptOnce({ ...transcript, id: `trn_${p}2` });
            } finally {
              store.db.knex.removeListener("query", count);
            }
            expect(statements).to.have.length(2);
            const kept = await store.leads.transcriptsOf(siteId);
            expect(kept.map((t) => t.id)).to.deep.equal([`trn_${p}1`]);
          });

          it("keeps a site's vectors beside its index, longer than a TEXT column", async () => {
            const knowledge = {
              site_id: siteId,
              format: 1,
              language: "en",
              serialized: "{}",
              built_at: 5,
              pages: 1,
              sections: 1,
              passages: 1,
              languages: '["en"]',
              crawl_id: null,
              failures: "[]",
            };
            await store.siteKnowledge.put({ ...knowledge, vectors: null, vectors_provider: null });
            expect(await store.siteKnowledge.vectors(siteId)).to.deep.equal({
              vectors: null,
              vectors_provider: null,
            });
            const vectors = "v".repeat(300_000);
            await store.siteKnowledge.put({ ...knowledge, vectors, vectors_provider: "openai" });
            expect(await store.siteKnowledge.vectors(siteId)).to.deep.equal({
              vectors,
              vectors_provider: "openai",
            });
            expect((await store.siteKnowledge.get(siteId))?.vectors).to.equal(vectors);
            expect((await store.siteKnowledge.summary(siteId))?.vectors_provider).to.equal(
              "openai",
            );
          });

          it("cascades versions on delete, and deletes only once", async () => {
            expect(await store.sites.listVersions(siteId)).to.have.length(1);
            expect(await store.sites.delete(siteId)).to.equal(true);
            expect(await store.sites.listVersions(siteId)).to.deep.equal([]);
            expect(await store.sites.delete(siteId)).to.equal(false);
          });
        });

        it("writes a transaction whole or not at all", async () => {
          let error: unknown;
          await store
            .transaction(async (tx) => {
              await tx.sites.insert(site(p, 7, wsA));
              await tx.sites.insert(site(p, 7, wsA)); // duplicate key: the whole transaction rolls back
            })
            .catch((e: unknown) => (error = e));
          expect(isUniqueViolation(error)).to.equal(true);
          expect(await store.sites.get(`${p}site-7`)).to.equal(undefined);
        });
      });
    });
  });
}
