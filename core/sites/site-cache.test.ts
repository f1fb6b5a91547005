/**
 * The site cache on its own: a fake channel and a hand-turned clock, so every path (hits, TTL,
 * invalidation, a read racing a change, a channel that cannot hear) is exercised exactly.
 */
import { expect } from "chai";
import type { SiteRow } from "../store/repos/sites-repo.ts";
import { SiteCache, type SiteChangeChannel } from "./site-cache.ts";

const TTL = 1_000;

/** A channel the test drives: it says what was published and emits what it is told. */
class FakeChannel implements SiteChangeChannel {
  connected = true;
  readonly published: string[] = [];
  private readonly listeners: ((siteId: string) => void)[] = [];
  async publish(siteId: string) {
    this.published.push(siteId);
  }
  subscribe(listener: (siteId: string) => void) {
    this.listeners.push(listener);
  }
  emit(siteId: string) {
    for (const listener of this.listeners) listener(siteId);
  }
  /** Back after a loss: subscribed again, then "*" as every real channel does. */
  reconnect() {
    this.connected = true;
    this.emit("*");
  }
  async close() {}
}

const row = (siteId: string, version = 1): SiteRow => ({
  site_id: siteId,
  workspace_id: "ws_1",
  business_name: `Business ${siteId}`,
  domain: `${siteId}.example`,
  config: "{}",
  version,
  content_hash: `hash-${version}`,
  created_at: 0,
  updated_at: 0,
});

/** A store of rows whose reads are counted, one version per site, bumped by `write`. */
function fakeStore() {
  const versions = new Map<string, number>([
    ["site_a", 1],
    ["site_b", 1],
  ]);
  const loads: string[] = [];
  return {
    loads,
    write: (siteId: string) => versions.set(siteId, (versions.get(siteId) ?? 0) + 1),
    load: async (siteId: string) => {
      loads.push(siteId);
      const version = versions.get(siteId);
      return version === undefined ? undefined : row(siteId, version);
    },
  };
}

/** A read that resolves only when the test says so. */
function pendingLoad() {
  let resolve!: (row: SiteRow | undefined) => void;
  const result = new Promise<SiteRow | undefined>((r) => (resolve = r));
  return { load: () => result, resolve };
}

describe("site cache", () => {
  let channel: FakeChannel;
  let clock: number;
  let cache: SiteCache;
  let store: ReturnType<typeof fakeStore>;

  beforeEach(() => {
    channel = new FakeChannel();
    clock = 0;
    cache = new SiteCache(channel, { ttlMs: TTL, now: () => clock });
    store = fakeStore();
  });

  it("loads a site on a miss and serves it from memory after", async () => {
    const first = await cache.get("site_a", store.load);
    const second = await cache.get("site_a", store.load);
    expect(first?.version).to.equal(1);
    expect(second).to.equal(first);
    expect(store.loads).to.deep.equal(["site_a"]);
  });

  it("does not hold a site that does not exist", async () => {
    expect(await cache.get("site_zz", store.load)).to.equal(undefined);
    expect(await cache.get("site_zz", store.load)).to.equal(undefined);
    expect(store.loads).to.deep.equal(["site_zz", "site_zz"]);
  });

  it("reads again once the TTL has passed", async () => {
    await cache.get("site_a", store.load);
    store.write("site_a");
    clock = TTL - 1;
    expect((await cache.get("site_a", store.load))?.version).to.equal(1);
    clock = TTL;
    expect((await cache.get("site_a", store.load))?.version).to.equal(2);
    expect(store.loads).to.deep.equal(["site_a", "site_a"]);
  });

  it("keeps the held object when a read after the TTL finds the same row, not when it changed", async () => {
    const first = await cache.get("site_a", store.load);
    clock = TTL;
    const again = await cache.get("site_a", store.load);
    expect(store.loads).to.deep.equal(["site_a", "site_a"]);
    expect(again).to.equal(first);
    store.write("site_a");
    clock = 2 * TTL;
    const changed = await cache.get("site_a", store.load);
    expect(changed).to.not.equal(first);
    expect(changed?.version).to.equal(2);
  });

  it("counts the TTL from when the read began, not when it answered", async () => {
    const slow = pendingLoad();
    const reading = cache.get("site_a", slow.load);
    clock = TTL - 1;
    slow.resolve(row("site_a"));
    await reading;
    clock = TTL;
    await cache.get("site_a", store.load);
    expect(store.loads).to.deep.equal(["site_a"]);
  });

  it("drops one site when the channel says it changed, and keeps the others", async () => {
    await cache.get("site_a", store.load);
    await cache.get("site_b", store.load);
    store.write("site_a");
    channel.emit("site_a");
    expect((await cache.get("site_a", store.load))?.version).to.equal(2);
    expect((await cache.get("site_b", store.load))?.version).to.equal(1);
    expect(store.loads).to.deep.equal(["site_a", "site_b", "site_a"]);
  });

  it('drops every site on "*"', async () => {
    await cache.get("site_a", store.load);
    await cache.get("site_b", store.load);
    channel.emit("*");
    await cache.get("site_a", store.load);
    await cache.get("site_b", store.load);
    expect(store.loads).to.deep.equal(["site_a", "site_b", "site_a", "site_b"]);
  });

  it("drops a site changed here at once and publishes the change", async () => {
    await cache.get("site_a", store.load);
    store.write("site_a");
    await cache.changed("site_a");
    expect(channel.published).to.deep.equal(["site_a"]);
    expect((await cache.get("site_a", store.load))?.version).to.equal(2);
  });

  describe("a read racing a change", () => {
    it("answers but does not keep a row read while its site changed", async () => {
      const slow = pendingLoad();
      const reading = cache.get("site_a", slow.load);
      channel.emit("site_a"); // the write committed after the read had begun
      slow.resolve(row("site_a", 1));
      expect((await reading)?.version).to.equal(1);
      store.write("site_a");
      expect((await cache.get("site_a", store.load))?.version).to.equal(2);
    });

    it('does not keep a row read while "*" arrived', async () => {
      const slow = pendingLoad();
      const reading = cache.get("site_a", slow.load);
      channel.emit("*");
      slow.resolve(row("site_a", 1));
      await reading;
      await cache.get("site_a", store.load);
      expect(store.loads).to.deep.equal(["site_a"]);
    });

    it("does not keep a row read while this instance changed the site", async () => {
      const slow = pendingLoad();
      const reading = cache.get("site_a", slow.load);
      await cache.changed("site_a");
      slow.resolve(row("site_a", 1));
      await reading;
      await cache.get("site_a", store.load);
      expect(store.loads).to.deep.equal(["site_a"]);
    });

    it("keeps a row read after the change even while an older read is still out", async () => {
      const older = pendingLoad();
      const newer = pendingLoad();
      const first = cache.get("site_a", older.load);
      channel.emit("site_a");
      const second = cache.get("site_a", newer.load);
      newer.resolve(row("site_a", 2));
      older.resolve(row("site_a", 1));
      await Promise.all([first, second]);
      expect((await cache.get("site_a", store.load))?.version).to.equal(2);
      expect(store.loads).to.deep.equal([]);
    });

    it("keeps a row whose read overlapped a change of another site", async () => {
      const slow = pendingLoad();
      const reading = cache.get("site_a", slow.load);
      channel.emit("site_b");
      slow.resolve(row("site_a", 1));
      await reading;
      await cache.get("site_a", store.load);
      expect(store.loads).to.deep.equal([]);
    });
  });

  describe("a channel that cannot hear", () => {
    it("reads every time and keeps nothing while disconnected", async () => {
      await cache.get("site_a", store.load);
      channel.connected = false;
      store.write("site_a");
      expect((await cache.get("site_a", store.load))?.version).to.equal(2);
      expect((await cache.get("site_a", store.load))?.version).to.equal(2);
      expect(store.loads).to.deep.equal(["site_a", "site_a", "site_a"]);
    });

    it("does not keep a row whose read ended after the channel went down", async () => {
      const slow = pendingLoad();
      const reading = cache.get("site_a", slow.load);
      channel.connected = false;
      slow.resolve(row("site_a", 1));
      await reading;
      channel.connected = true; // as if back without a "*": still nothing was kept
      await cache.get("site_a", store.load);
      expect(store.loads).to.deep.equal(["site_a"]);
    });

    it("forgets everything held before the loss once it is back", async () => {
      await cache.get("site_a", store.load);
      await cache.get("site_b", store.load);
      channel.connected = false; // no read while down: what is held stays held until "*"
      store.write("site_a");
      store.write("site_b");
      channel.reconnect();
      expect((await cache.get("site_a", store.load))?.version).to.equal(2);
      expect((await cache.get("site_b", store.load))?.version).to.equal(2);
      expect((await cache.get("site_a", store.load))?.version).to.equal(2);
      expect(store.loads).to.deep.equal(["site_a", "site_b", "site_a", "site_b"]);
    });
  });
});
