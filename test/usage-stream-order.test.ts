/**
 * A site's usage event ids grow in the order their batches commit, whichever of several
 * instances (here: stores with pools of their own on one database) wrote them, so a reader that
 * follows "every event after the last id I read" (the live stream, a client's Last-Event-ID)
 * misses none. And batches of several sites written at once, in any order, never deadlock.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import { loadSettings } from "../core/settings.ts";
import { migrate, openDatabase } from "../core/store/database.ts";
import { idAfter } from "../core/store/repos/usage-stream-heads.ts";
import { Store } from "../core/store/store.ts";
import { idAt, isId, newId } from "../core/store/ids.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { usageRow } from "./helpers/usage-rows.ts";

describe("idAfter", () => {
  it("keeps an id above the last, else gives one a random step above it in the same millisecond", () => {
    const last = newId("evt");
    const later = newId("evt");
    expect(idAfter(last, later)).to.equal(later);
    expect(idAfter("", later)).to.equal(later);
    const raised = idAfter(later, last);
    expect(raised > later).to.equal(true);
    expect(isId("evt", raised)).to.equal(true);
    expect(raised.slice(0, 14)).to.equal(later.slice(0, 14)); // the same time part
    expect(idAfter(later, later) > later).to.equal(true);
    const edge = `${idAt("evt", 1_000).slice(0, 14)}${"z".repeat(16)}`;
    expect(idAfter(edge, idAt("evt", 1_000)) > edge).to.equal(true);
  });
});

for (const target of databaseTargets) {
  describe(`usage event order on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    const stores: Store[] = [];

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      const settings = loadSettings({ DATABASE_URL: database.url });
      // SQLite has one writer: its second "instance" would share nothing but the file.
      for (let i = 0; i < (target.client === "sqlite" ? 1 : 2); i++) {
        stores.push(new Store(openDatabase(settings.database)));
      }
      await migrate(stores[0]!.db);
    });
    after(async () => {
      for (const store of stores.splice(0)) await store.close();
      await database?.drop();
    });

    it("stores an event made before the site's last one with an id above it", async () => {
      const siteId = `order-${crypto.randomBytes(3).toString("hex")}`;
      const early = usageRow(siteId);
      const late = usageRow(siteId);
      const store = stores.at(-1)!;
      await stores[0]!.events.storeUsage([late]);
      const [stored] = await store.events.storeUsage([early]);
      expect(stored!.row.id > late.id).to.equal(true);
      expect(stored!.repeated).to.equal(false);
      const after = await store.events.usageAfter(siteId, late.id, 10);
      expect(after.map((row) => row.id)).to.deep.equal([stored!.row.id]);
      expect(await store.events.streamHead(siteId)).to.equal(stored!.row.id);
    });

    it("lets a reader following the last id it read miss no event of concurrent writers", async () => {
      const siteId = `follow-${crypto.randomBytes(3).toString("hex")}`;
      const written: string[] = [];
      let writing = true;
      const read: string[] = [];
      const reader = (async () => {
        let last = "";
        for (let idle = 0; writing || idle < 2;) {
          const rows = await stores[0]!.events.usageAfter(siteId, last, 1_000);
          if (rows.length > 0) last = rows.at(-1)!.id;
          read.push(...rows.map((row) => row.id));
          idle = writing ? 0 : idle + 1;
          // Lets the writers' timers run (better-sqlite3 answers without leaving the microtasks).
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      // Each writer makes its batch's ids, then waits a little before storing them, so batches
      // of the two commit out of the order their ids were made in.
      await Promise.all(
        stores.map(async (store, w) => {
          for (let batch = 0; batch < 40; batch++) {
            const rows = Array.from({ length: 5 }, () => usageRow(siteId));
            await new Promise((resolve) => setTimeout(resolve, (batch + w) % 3));
            for (const { row } of await store.events.storeUsage(rows)) written.push(row.id);
          }
        }),
      );
      writing = false;
      await reader;
      expect(read.length).to.equal(written.length);
      expect([...read].sort()).to.deep.equal([...written].sort());
      expect(read).to.deep.equal([...read].sort());
    });

    it("stores batches of many sites at once, in opposite orders, without a deadlock", async () => {
      const sites = Array.from(
        { length: 8 },
        (_, i) => `lock-${i}-${crypto.randomBytes(2).toString("hex")}`,
      );
      const batch = (order: string[]) => order.flatMap((site) => [usageRow(site), usageRow(site)]);
      await Promise.all(
        Array.from({ length: 12 }, (_, i) => {
          const store = stores[i % stores.length]!;
          return store.events.storeUsage(batch(i % 2 === 0 ? sites : [...sites].reverse()));
        }),
      );
      for (const site of sites) expect(await stores[0]!.events.countUsage(site)).to.equal(24);
    });
  });
}
