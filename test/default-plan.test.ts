/**
 * SITEVOICE_DEFAULT_PLAN on SQLite, PostgreSQL and MariaDB: the plan of the default workspace the
 * first start creates (business when unset), and set again on every start when given, like
 * SITEVOICE_OWNER_EMAIL; unset, it leaves the stored plan (`sitevoice workspace plan`'s) alone.
 */
import { expect } from "chai";
import pino from "pino";
import { bootstrap } from "../core/bootstrap.ts";
import { composeStore, type StoreParts } from "../core/compose.ts";
import { loadSettings } from "../core/settings.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";

const silent = pino({ level: "silent" });

for (const target of databaseTargets) {
  describe(`SITEVOICE_DEFAULT_PLAN on ${target.label}`, () => {
    let database: TestDatabase | undefined;
    let parts: StoreParts | undefined;

    /** A start's bootstrap with `env`; the default workspace's plan afterwards. */
    const start = async (env: Record<string, string> = {}) => {
      await parts?.store.close();
      parts = await composeStore(loadSettings({ DATABASE_URL: database!.url, ...env }), silent);
      const boot = await bootstrap(parts.store, parts.keys, parts.settings);
      return (await parts.store.workspaces.get(boot.workspaceId))?.plan;
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

    it("is business for the default workspace a first start creates when unset", async () => {
      expect(await start({})).to.equal("business");
    });

    it("is the plan of the default workspace a first start creates when set", async () => {
      expect(await start({ SITEVOICE_DEFAULT_PLAN: "starter" })).to.equal("starter");
    });

    it("sets the default workspace's plan again on a later start when set", async () => {
      await start({});
      expect(await start({ SITEVOICE_DEFAULT_PLAN: "pro" })).to.equal("pro");
    });

    it("leaves the stored plan (changed by workspace plan) alone on a start where it is unset", async () => {
      await start({ SITEVOICE_DEFAULT_PLAN: "pro" });
      await parts!.store.workspaces.setPlan("ws_default", "starter");
      expect(await start({})).to.equal("starter");
    });
  });
}
