/**
 * The workspace's contact email, "the owner" until accounts exist, on SQLite, PostgreSQL and
 * MariaDB: migration 005 adds it to a store that already has a workspace, and the bootstrap sets
 * the default workspace's from SITEVOICE_OWNER_EMAIL, on the first start and on later ones.
 */
import { expect } from "chai";
import pino from "pino";
import { bootstrap, DEFAULT_WORKSPACE_ID } from "../core/bootstrap.ts";
import { composeStore, type StoreParts } from "../core/compose.ts";
import { migrationSource } from "../core/store/migrations/index.ts";
import { loadSettings } from "../core/settings.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";

const silent = pino({ level: "silent" });

for (const target of databaseTargets) {
  describe(`the owner's email on ${target.label}`, () => {
    let database: TestDatabase | undefined;
    let parts: StoreParts | undefined;

    /** The store of `database` as a start with `env` opens it (migrated). */
    const open = async (env: Record<string, string> = {}) => {
      await parts?.store.close();
      parts = await composeStore(loadSettings({ DATABASE_URL: database!.url, ...env }), silent);
      return parts;
    };
    const start = async (env: Record<string, string> = {}) => {
      const { store, keys, settings } = await open(env);
      return bootstrap(store, keys, settings);
    };

    beforeEach(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
    });
    afterEach(async () => {
      await parts?.store.close();
      parts = undefined;
      await database?.drop();
    });

    it("is set on the default workspace at its creation, from SITEVOICE_OWNER_EMAIL", async () => {
      const boot = await start({ SITEVOICE_OWNER_EMAIL: "owner@acme.example" });
      expect(boot.workspaceId).to.equal(DEFAULT_WORKSPACE_ID);
      expect(boot.firstKey).to.be.a("string");
      expect(await parts!.store.workspaces.ownerEmail(boot.workspaceId)).to.equal(
        "owner@acme.example",
      );
    });

    it("follows a changed setting on a later start, and stays when the setting is unset", async () => {
      const first = await start({});
      expect(await parts!.store.workspaces.ownerEmail(first.workspaceId)).to.equal(undefined);
      await start({ SITEVOICE_OWNER_EMAIL: "first@acme.example" });
      const later = await start({ SITEVOICE_OWNER_EMAIL: "second@acme.example" });
      expect(later).to.deep.equal({ workspaceId: first.workspaceId }); // no second key
      expect(await parts!.store.workspaces.ownerEmail(first.workspaceId)).to.equal(
        "second@acme.example",
      );
      await start({});
      expect(await parts!.store.workspaces.ownerEmail(first.workspaceId)).to.equal(
        "second@acme.example",
      );
      expect(await parts!.store.workspaces.ownerEmail("ws_nobody")).to.equal(undefined);
    });

    it("is added by migration 005 to a store that has a workspace, and removed by its down", async () => {
      const { store } = await open();
      const knex = store.db.knex;
      // By name: later migrations (006 onwards) stay; this one is undone.
      await knex.migrate.down({ migrationSource, name: "005-workspace-contact" });
      expect(await knex.schema.hasColumn("workspaces", "contact_email")).to.equal(false);
      await knex("workspaces").insert({
        id: "ws_before",
        name: "Before",
        plan: "business",
        created_at: 1,
      });
      // The oldest workspace is the default one a start finds.
      await start({ SITEVOICE_OWNER_EMAIL: "owner@acme.example" });
      expect(await parts!.store.db.knex.schema.hasColumn("workspaces", "contact_email")).to.equal(
        true,
      );
      const workspaces = parts!.store.workspaces;
      expect(await workspaces.ownerEmail("ws_before")).to.equal("owner@acme.example");
      expect((await workspaces.get("ws_before"))?.name).to.equal("Before");
    });
  });
}
