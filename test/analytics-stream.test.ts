/**
 * GET /v1/:siteId/analytics/stream over real sockets: the refusals in the envelope, the SSE
 * format and heartbeat, events recorded on one instance reaching a subscriber on another (through
 * PostgreSQL LISTEN/NOTIFY, and through Redis), replay after Last-Event-ID, catching up after the
 * channel was cut, a client that stops reading cut off, and a revoked key ending its stream.
 */
import crypto from "node:crypto";
import net from "node:net";
import { expect } from "chai";
import request from "supertest";
import { USAGE_STORED } from "../core/analytics/usage-stream.ts";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { openStream, type SseStream } from "./helpers/sse-client.ts";
import { usageRow } from "./helpers/usage-rows.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { killPostgresListeners, killRedisSubscribers } from "./helpers/channel-cuts.ts";
import { redisAvailable, TEST_REDIS_URL } from "./helpers/test-redis.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { waitUntil } from "./helpers/wait-until.ts";
import { inlineSiteWithSession, signedPost, type WidgetSession } from "./helpers/widget-session.ts";

const sqlite = databaseTargets.find((target) => target.client === "sqlite")!;
const postgres = databaseTargets.find((target) => target.client === "postgres")!;
const PLUGINS = { SITEVOICE_PLUGINS: "sitevoice-adapter-inline" };
const SSE = { Accept: "text/event-stream" };

/** Opens the stream of `siteId` on `service` with `key`. */
const streamOf = (
  service: TestService,
  siteId: string,
  key: string,
  headers: Record<string, string> = {},
): Promise<SseStream> =>
  openStream(`${service.url}/v1/${siteId}/analytics/stream`, {
    ...SSE,
    Authorization: `Bearer ${key}`,
    ...headers,
  });

/** Records a function call through the signed event endpoint; its id. */
async function recordOn(service: TestService, session: WidgetSession, name: string) {
  const res = await signedPost(service, session, "/analytics/event", {
    type: "function_call",
    function_name: name,
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(202);
  return res.body.data.id as string;
}

const streamed = (stream: SseStream) => stream.events.map((event) => event.id);

describe("analytics stream on one instance", function () {
  this.timeout(60_000);
  let database: TestDatabase | undefined;
  let service: TestService;
  let session: WidgetSession;
  let key: string;
  const open: SseStream[] = [];
  const stream = async (siteId: string, withKey: string, headers?: Record<string, string>) => {
    const opened = await streamOf(service, siteId, withKey, headers);
    open.push(opened);
    return opened;
  };

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    service = await startTestService(database.url, {
      ...PLUGINS,
      SITEVOICE_STREAM_HEARTBEAT_MS: "200",
    });
    session = await inlineSiteWithSession(service, { prefix: "stream", domain: "stream.example" });
    key = await service.key(session.workspaceId, { scopes: ["analytics:read"] });
  });
  afterEach(() => {
    for (const opened of open.splice(0)) opened.close();
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("streams each recorded event as `event: usage_event`, its id, and the UsageEvent as data", async () => {
    const live = await stream(session.siteId, key);
    expect(live.status).to.equal(200);
    expect(live.headers["content-type"]).to.match(/^text\/event-stream/);
    expect(live.headers["cache-control"]).to.include("no-cache").and.include("no-transform");
    expect(live.headers["x-accel-buffering"]).to.equal("no");
    await expectSubscribed(service, session.siteId, 1);
    const id = await recordOn(service, session, "search_database");
    const [event] = await live.waitFor(1);
    expect(event).to.include({ event: "usage_event", id });
    const listed = await request(service.server)
      .get(`/v1/${session.siteId}/analytics/events?limit=1`)
      .set("Authorization", `Bearer ${key}`)
      .expect(200);
    expect(JSON.parse(event!.data)).to.deep.equal(listed.body.data[0]);
    expect(live.retry).to.equal(2000);
  });

  it("sends a heartbeat comment every SITEVOICE_STREAM_HEARTBEAT_MS while idle", async () => {
    const idle = await stream(session.siteId, key);
    await waitUntil("three heartbeats", () => idle.comments >= 3);
    expect(idle.events).to.deep.equal([]);
  });

  it("refuses, in the envelope, what may not open a stream", async () => {
    const other = await inlineSiteWithSession(service, {
      prefix: "other",
      domain: "other.example",
    });
    const noScope = await service.key(session.workspaceId, { scopes: ["sites:read"] });
    const another = await service.sites.create(operatorPrincipal(session.workspaceId, "test"), {
      business_name: "Another",
      business_description: "",
      domain: `another-${crypto.randomBytes(3).toString("hex")}.example`,
    });
    const elsewhere = await service.key(session.workspaceId, {
      scopes: ["analytics:read"],
      siteIds: [another.site_id],
    });
    const cases: [string, Promise<SseStream>, number, string, string?][] = [
      [
        "no key",
        openStream(`${service.url}/v1/${session.siteId}/analytics/stream`, SSE),
        401,
        "unauthorized",
      ],
      ["a key without analytics:read", stream(session.siteId, noScope), 403, "forbidden"],
      ["a key for other sites", stream(session.siteId, elsewhere), 403, "forbidden"],
      ["another workspace's site", stream(other.siteId, key), 404, "site_not_found"],
      ["an unknown site", stream("no-such-site", key), 404, "site_not_found"],
      [
        "Accept: application/json",
        stream(session.siteId, key, { Accept: "application/json" }),
        406,
        "not_acceptable",
      ],
      ["Accept: */*", stream(session.siteId, key, { Accept: "*/*" }), 406, "not_acceptable"],
      [
        "a malformed Last-Event-ID",
        stream(session.siteId, key, { "Last-Event-ID": "evt_nope" }),
        400,
        "invalid_params",
        "Last-Event-ID",
      ],
    ];
    for (const [what, opening, status, code, field] of cases) {
      const refused = await opening;
      expect(refused.status, what).to.equal(status);
      const body = JSON.parse(refused.body);
      expect(body, what).to.deep.include({ success: false });
      expect(body.error.code, what).to.equal(code);
      if (field !== undefined) expect(body.error.details.field, what).to.equal(field);
    }
    const param = await openStream(
      `${service.url}/v1/${session.siteId}/analytics/stream?since=2026-01-01`,
      { ...SSE, Authorization: `Bearer ${key}` },
    );
    expect(param.status).to.equal(400);
    expect(JSON.parse(param.body).error.code).to.equal("invalid_params");
  });

  it("refuses a site's 21st open stream on one instance with 429 and Retry-After", async () => {
    const site = await inlineSiteWithSession(service, { prefix: "busy", domain: "busy.example" });
    const busyKey = await service.key(site.workspaceId, { scopes: ["analytics:read"] });
    for (let i = 0; i < 20; i += 1) {
      expect((await stream(site.siteId, busyKey)).status).to.equal(200);
    }
    await expectSubscribed(service, site.siteId, 20);
    const refused = await stream(site.siteId, busyKey);
    expect(refused.status).to.equal(429);
    expect(refused.headers["retry-after"]).to.equal("30");
    expect(JSON.parse(refused.body).error.code).to.equal("rate_limited");
  });

  it("replays exactly the events after Last-Event-ID, then goes on live", async () => {
    const first = await stream(session.siteId, key);
    await expectSubscribed(service, session.siteId, 1);
    const seen = [await recordOn(service, session, "a"), await recordOn(service, session, "b")];
    await first.waitFor(2);
    first.close();
    await expectSubscribed(service, session.siteId, 0);
    const missed: string[] = [];
    for (const name of ["c", "d", "e"]) missed.push(await recordOn(service, session, name));
    const again = await stream(session.siteId, key, { "Last-Event-ID": seen[1]! });
    await again.waitFor(3);
    expect(streamed(again)).to.deep.equal(missed);
    const later = await recordOn(service, session, "f");
    await again.waitFor(4);
    expect(streamed(again)).to.deep.equal([...missed, later]);
  });

  it("replays more events than one page from the store, in order, each once", async () => {
    const siteId = session.siteId;
    const before = await recordOn(service, session, "mark");
    const ids: string[] = [];
    for (let batch = 0; batch < 6; batch += 1) {
      const events = await Promise.all(
        Array.from({ length: 200 }, () =>
          service.events.recordUsage({ site_id: siteId, type: "db_query" }),
        ),
      );
      ids.push(...events.map((event) => event.id));
    }
    const replay = await stream(siteId, key, { "Last-Event-ID": before });
    await replay.waitFor(1_200);
    expect(streamed(replay)).to.deep.equal(ids);
  });

  it("cuts off a client that stops reading, keeping what the server holds for it bounded", async () => {
    const site = await inlineSiteWithSession(service, { prefix: "slow", domain: "slow.example" });
    const slowKey = await service.key(site.workspaceId, { scopes: ["analytics:read"] });
    const socket = net.connect(service.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.pause(); // reads nothing from here on
    socket.write(
      `GET /v1/${site.siteId}/analytics/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Accept: text/event-stream\r\nAuthorization: Bearer ${slowKey}\r\n\r\n`,
    );
    await expectSubscribed(service, site.siteId, 1);
    const cutBefore = service.usageStream.cutOff;
    const padding = "x".repeat(8_000);
    let written = 0;
    // 64 MB offered: far past the kernel's socket buffers and the 1 MiB the server leaves unread.
    for (let batch = 0; batch < 80 && service.usageStream.count(site.siteId) > 0; batch += 1) {
      await Promise.all(
        Array.from({ length: 100 }, () =>
          service.events.recordUsage({
            site_id: site.siteId,
            type: "function_call",
            function_name: "big",
            metadata: { padding },
          }),
        ),
      );
      written += 100 * padding.length;
    }
    await expectSubscribed(service, site.siteId, 0);
    expect(service.usageStream.cutOff).to.equal(cutBefore + 1);
    let received = 0;
    socket.on("data", (chunk: Buffer) => (received += chunk.length));
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.resume();
    await closed;
    expect(received).to.be.greaterThan(0);
    expect(received).to.be.lessThan(written);
  });

  it("ends the stream once its key is revoked", async () => {
    const created = await service.keys.create(session.workspaceId, {
      name: "short-lived",
      scopes: ["analytics:read"],
      mode: "test",
    });
    const live = await stream(session.siteId, created.value);
    expect(live.status).to.equal(200);
    await service.keys.revoke(session.workspaceId, created.id);
    await live.waitForEnd();
    const again = await stream(session.siteId, created.value);
    expect(again.status).to.equal(401);
  });

  it("ends the stream once its site is deleted", async () => {
    const site = await inlineSiteWithSession(service, { prefix: "gone", domain: "gone.example" });
    const live = await stream(site.siteId, await service.key(site.workspaceId));
    expect(live.status).to.equal(200);
    await service.sites.delete(operatorPrincipal(site.workspaceId, "test"), site.siteId);
    await live.waitForEnd();
  });

  it("ends its streams and refuses new ones (503) when the instance starts stopping", async () => {
    const live = await stream(session.siteId, key);
    expect(live.status).to.equal(200);
    service.usageStream.endStreams();
    await live.waitForEnd();
    const refused = await stream(session.siteId, key);
    expect(refused.status).to.equal(503);
    expect(JSON.parse(refused.body).error.code).to.equal("service_unavailable");
  });
});

/** Two instances on one PostgreSQL database, with `env` choosing the channel between them. */
function acrossInstances(
  title: string,
  options: {
    env: Record<string, string>;
    needsRedis: boolean;
    cut: (url: string) => Promise<void>;
  },
) {
  describe(title, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let a: TestService;
    let b: TestService;
    let session: WidgetSession;
    let key: string;
    const open: SseStream[] = [];
    const streamOnB = async (headers?: Record<string, string>) => {
      const opened = await streamOf(b, session.siteId, key, headers);
      open.push(opened);
      expect(opened.status).to.equal(200);
      return opened;
    };

    before(async function () {
      if (options.needsRedis && !(await redisAvailable()))
        missing(this, `Redis at ${TEST_REDIS_URL}`);
      database = await createTestDatabase(postgres);
      if (database === undefined) missing(this, postgres.label);
      const env = {
        ...PLUGINS,
        ...options.env,
        SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
      };
      a = await startTestService(database.url, env);
      b = await startTestService(database.url, env);
      session = await inlineSiteWithSession(a, { prefix: "across", domain: "across.example" });
      key = await a.key(session.workspaceId, { scopes: ["analytics:read"] });
    });
    afterEach(() => {
      for (const opened of open.splice(0)) opened.close();
    });
    after(async () => {
      await a?.stop();
      await b?.stop();
      await database?.drop();
    });

    it("brings an event recorded on A to a subscriber on B", async () => {
      const live = await streamOnB();
      await expectSubscribed(b, session.siteId, 1);
      const ids = [await recordOn(a, session, "one"), await recordOn(a, session, "two")];
      await live.waitFor(2);
      expect(streamed(live)).to.deep.equal(ids);
      expect(JSON.parse(live.events[0]!.data)).to.include({
        id: ids[0],
        site_id: session.siteId,
        type: "function_call",
        function_name: "one",
      });
    });

    it("replays on B, after Last-Event-ID, exactly the events A recorded meanwhile", async () => {
      const first = await streamOnB();
      await expectSubscribed(b, session.siteId, 1);
      const seen = await recordOn(a, session, "seen");
      await first.waitFor(1);
      first.close();
      await expectSubscribed(b, session.siteId, 0);
      const missed = [await recordOn(a, session, "m1"), await recordOn(b, session, "m2")];
      const again = await streamOnB({ "Last-Event-ID": seen });
      await again.waitFor(2);
      const live = await recordOn(a, session, "live");
      await again.waitFor(3);
      expect(streamed(again)).to.deep.equal([...missed, live]);
    });

    it("reads the store after its last id, so events never announced come in order before the next", async () => {
      const live = await streamOnB();
      await expectSubscribed(b, session.siteId, 1);
      // Stored behind the event bus's back: no instance announces them, as a message lost would.
      const rows = [1, 2, 3].map(() => usageRow(session.siteId));
      await a.store.events.storeUsage(rows);
      const told = await recordOn(a, session, "told");
      await live.waitFor(4);
      expect(streamed(live)).to.deep.equal([...rows.map((row) => row.id), told]);
    });

    it("catches up from the store, once its channel is back, on events it was never told of", async () => {
      const live = await streamOnB();
      await expectSubscribed(b, session.siteId, 1);
      const told = await recordOn(a, session, "told first");
      await live.waitFor(1);
      const rows = [1, 2, 3].map(() => usageRow(session.siteId));
      await a.store.events.storeUsage(rows);
      await options.cut((database as TestDatabase).url);
      await live.waitFor(4, 15_000);
      expect(streamed(live)).to.deep.equal([told, ...rows.map((row) => row.id)]);
    });

    it("sends an event whose batch committed after a later one's, to a client that read the later one", async () => {
      // Two instances' batches: the first made its id earlier but commits after the second.
      const early = usageRow(session.siteId);
      const late = usageRow(session.siteId);
      expect(early.id < late.id).to.equal(true);
      await b.store.events.storeUsage([late]);
      const first = await streamOnB({ "Last-Event-ID": early.id });
      await first.waitFor(1);
      expect(streamed(first)).to.deep.equal([late.id]);
      first.close();
      await expectSubscribed(b, session.siteId, 0);
      const [stored] = await a.store.events.storeUsage([early]);
      expect(stored!.row.id > late.id, "stored with an id above the later event's").to.equal(true);
      const again = await streamOnB({ "Last-Event-ID": late.id });
      await again.waitFor(1);
      expect(streamed(again)).to.deep.equal([stored!.row.id]);
      const events = await a.store.events.listUsage(session.siteId);
      expect(events.filter((e) => e.id === early.id)).to.deep.equal([]);
    });
  });
}

acrossInstances("analytics stream across instances through PostgreSQL LISTEN/NOTIFY", {
  env: {},
  needsRedis: false,
  cut: (url) => killPostgresListeners(url, USAGE_STORED),
});

acrossInstances("analytics stream across instances through Redis", {
  env: { REDIS_URL: TEST_REDIS_URL },
  needsRedis: true,
  cut: killRedisSubscribers,
});

async function expectSubscribed(service: TestService, siteId: string, count: number) {
  await waitUntil(
    `${count} subscribers to ${siteId}`,
    () => service.usageStream.count(siteId) === count,
  );
}
