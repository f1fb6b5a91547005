/**
 * The caps on open analytics streams (20 a site, 20 a key, on one instance) over real sockets:
 * held against a burst of simultaneous opens, since a slot is taken before the stream's
 * asynchronous setup, and given back on every way a stream ends, a client leaving during the
 * setup and a setup that fails included.
 */
import crypto from "node:crypto";
import type http from "node:http";
import net from "node:net";
import { expect } from "chai";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { openStream, type SseStream } from "./helpers/sse-client.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { waitUntil } from "./helpers/wait-until.ts";

const sqlite = databaseTargets.find((target) => target.client === "sqlite")!;
const CAP = 20;

describe("analytics stream caps", function () {
  this.timeout(60_000);
  let database: TestDatabase | undefined;
  let service: TestService;
  const open: SseStream[] = [];
  const undo: (() => void)[] = [];

  /** Opens the stream of `siteId` with `key`, closed after the test. */
  const stream = async (siteId: string, key: string) => {
    const opened = await openStream(`${service.url}/v1/${siteId}/analytics/stream`, {
      Accept: "text/event-stream",
      Authorization: `Bearer ${key}`,
    });
    open.push(opened);
    return opened;
  };
  /** `count` simultaneous opens of the sites, round robin; their answers. */
  const burst = (siteIds: string[], key: string, count: number) =>
    Promise.all(Array.from({ length: count }, (_, i) => stream(siteIds[i % siteIds.length]!, key)));
  const statuses = (streams: SseStream[]) => {
    const tally: Record<number, number> = {};
    for (const { status } of streams) tally[status] = (tally[status] ?? 0) + 1;
    return tally;
  };
  /** A new workspace with `sites` sites and an analytics:read key; the site ids and the key. */
  const workspaceWith = async (sites: number) => {
    const workspaceId = await service.workspace();
    const siteIds: string[] = [];
    for (let i = 0; i < sites; i += 1) {
      const siteId = `capped-${crypto.randomBytes(4).toString("hex")}`;
      await service.sites.create(operatorPrincipal(workspaceId, "test"), {
        site_id: siteId,
        business_name: "Capped",
        business_description: "",
        domain: `${siteId}.example`,
        adapter: {
          type: "inline",
          config: { records: { items: [{ name: "a" }] } },
          collections: { items: { source: "items", searchable_fields: ["name"] } },
        },
      });
      siteIds.push(siteId);
    }
    const key = await service.key(workspaceId, { scopes: ["analytics:read"] });
    return { workspaceId, siteIds, key };
  };
  /** Replaces `target[method]` with `wrap(original)` for the rest of the test. */
  const intercept = <T extends object, K extends keyof T>(
    target: T,
    method: K,
    wrap: (original: T[K]) => T[K],
  ) => {
    const original = target[method];
    target[method] = wrap((original as (...args: unknown[]) => unknown).bind(target) as T[K]);
    undo.push(() => (target[method] = original));
  };
  /**
   * Sends `count` stream requests on raw sockets; the sockets, and the server's responses to them
   * (known once the server has read each request).
   */
  const rawOpens = async (siteId: string, key: string, count: number) => {
    const responses: http.ServerResponse[] = [];
    const path = `/v1/${siteId}/analytics/stream`;
    const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (req.url === path) responses.push(res);
    };
    service.server.on("request", onRequest);
    undo.push(() => service.server.off("request", onRequest));
    const sockets = await Promise.all(
      Array.from({ length: count }, async () => {
        const socket = net.connect(service.port, "127.0.0.1");
        await new Promise((resolve) => socket.once("connect", resolve));
        socket.write(
          `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n` +
            `Authorization: Bearer ${key}\r\n\r\n`,
        );
        return socket;
      }),
    );
    undo.push(() => sockets.forEach((socket) => socket.destroy()));
    return { sockets, responses };
  };
  /** Asserts that `siteId` takes 20 streams of a new key, one after another, and no 21st. */
  const expectAllSlotsFree = async (siteId: string, workspaceId: string) => {
    const fresh = await service.key(workspaceId, { scopes: ["analytics:read"] });
    for (let i = 0; i < CAP; i += 1) expect((await stream(siteId, fresh)).status).to.equal(200);
    await waitUntil(`${CAP} streams of ${siteId}`, () => service.usageStream.count(siteId) === CAP);
    expect((await stream(siteId, fresh)).status).to.equal(429);
  };

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    service = await startTestService(database.url, {
      SITEVOICE_PLUGINS: "sitevoice-adapter-inline",
      SITEVOICE_STREAM_HEARTBEAT_MS: "200",
    });
  });
  afterEach(() => {
    for (const restore of undo.splice(0).reverse()) restore();
    for (const opened of open.splice(0)) opened.close();
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("opens exactly 20 of 400 simultaneous streams of one site with one key; 380 get 429", async () => {
    const { siteIds, key } = await workspaceWith(1);
    const streams = await burst(siteIds, key, 400);
    expect(statuses(streams)).to.deep.equal({ 200: CAP, 429: 400 - CAP });
    const refused = streams.find((s) => s.status === 429)!;
    await refused.waitForEnd();
    expect(refused.headers["retry-after"]).to.equal("30");
    expect(JSON.parse(refused.body).error).to.deep.include({ code: "rate_limited" });
    expect(JSON.parse(refused.body).error.details).to.deep.include({ limit: CAP, per: "site" });
    expect(service.usageStream.slots.held(siteIds[0]!)).to.equal(CAP);
  });

  it("opens exactly 20 of 400 simultaneous streams with one key over five sites; 380 get 429", async () => {
    const { siteIds, key } = await workspaceWith(5);
    const streams = await burst(siteIds, key, 400);
    expect(statuses(streams)).to.deep.equal({ 200: CAP, 429: 400 - CAP });
    const refused = streams.find((s) => s.status === 429)!;
    await refused.waitForEnd();
    expect(JSON.parse(refused.body).error.details).to.deep.include({ limit: CAP, per: "key" });
  });

  it("refuses a key's 21st open stream across its sites, while another key still opens one", async () => {
    const { workspaceId, siteIds, key } = await workspaceWith(3);
    const [a, b, c] = siteIds as [string, string, string];
    expect(statuses(await burst([a, b], key, CAP))).to.deep.equal({ 200: CAP });
    const refused = await stream(c, key);
    expect(refused.status).to.equal(429);
    await refused.waitForEnd();
    expect(JSON.parse(refused.body).error.details).to.deep.include({ limit: CAP, per: "key" });
    const other = await service.key(workspaceId, { scopes: ["analytics:read"] });
    expect((await stream(a, other)).status).to.equal(200);
  });

  it("refuses a site's 21st open stream when two keys hold its 20", async () => {
    const { workspaceId, siteIds, key } = await workspaceWith(1);
    const other = await service.key(workspaceId, { scopes: ["analytics:read"] });
    expect(statuses(await burst(siteIds, key, CAP / 2))).to.deep.equal({ 200: CAP / 2 });
    expect(statuses(await burst(siteIds, other, CAP / 2))).to.deep.equal({ 200: CAP / 2 });
    const third = await service.key(workspaceId, { scopes: ["analytics:read"] });
    const refused = await stream(siteIds[0]!, third);
    expect(refused.status).to.equal(429);
    await refused.waitForEnd();
    expect(JSON.parse(refused.body).error.details).to.deep.include({ limit: CAP, per: "site" });
  });

  it("gives a burst's slots back once its streams close: the site and the key take 20 again", async () => {
    const { workspaceId, siteIds, key } = await workspaceWith(1);
    const first = await burst(siteIds, key, 400);
    expect(statuses(first)).to.deep.equal({ 200: CAP, 429: 400 - CAP });
    for (const opened of first) opened.close();
    await waitUntil("the streams gone", () => service.usageStream.count(siteIds[0]) === 0);
    expect(statuses(await burst(siteIds, key, CAP + 5))).to.deep.equal({ 200: CAP, 429: 5 });
    for (const opened of open.splice(0)) opened.close();
    await waitUntil("the streams gone", () => service.usageStream.count(siteIds[0]) === 0);
    await expectAllSlotsFree(siteIds[0]!, workspaceId);
  });

  it("gives back the slots of clients that leave while their access is checked", async () => {
    const { workspaceId, siteIds, key } = await workspaceWith(1);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let waiting = 0;
    let passed = 0;
    intercept(service.analytics, "checkAccess", (original) => async (...args) => {
      waiting += 1;
      await gate;
      const checked = await original(...args);
      passed += 1;
      return checked;
    });
    const { sockets, responses } = await rawOpens(siteIds[0]!, key, CAP);
    await waitUntil("every access check waiting", () => waiting === CAP);
    for (const socket of sockets) socket.destroy();
    await waitUntil("the server to see every client leave", () =>
      responses.every((res) => res.destroyed),
    );
    for (const restore of undo.splice(0).reverse()) restore();
    release();
    await waitUntil("every access check passed", () => passed === CAP);
    await expectAllSlotsFree(siteIds[0]!, workspaceId);
  });

  it("gives back the slots of clients that leave while their stream subscribes", async () => {
    const { workspaceId, siteIds, key } = await workspaceWith(1);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    intercept(service.store.events, "streamHead", (original) => async (...args) => {
      reads += 1;
      await gate;
      return original(...args);
    });
    const { sockets, responses } = await rawOpens(siteIds[0]!, key, CAP);
    // One read of the site's head, which every stream of the site waits for.
    await waitUntil("the head read", () => reads === 1 && responses.length === CAP);
    for (const socket of sockets) socket.destroy();
    await waitUntil("the server to see every client leave", () =>
      responses.every((res) => res.destroyed),
    );
    release();
    await waitUntil("the streams gone", () => service.usageStream.count(siteIds[0]) === 0);
    for (const restore of undo.splice(0).reverse()) restore();
    await expectAllSlotsFree(siteIds[0]!, workspaceId);
  });

  it("gives back the slots of streams whose setup fails", async () => {
    const { workspaceId, siteIds, key } = await workspaceWith(1);
    intercept(service.store.events, "streamHead", () => async () => {
      throw new Error("the store is away");
    });
    const failed = await burst(siteIds, key, CAP);
    for (const opened of failed) await opened.waitForEnd();
    for (const restore of undo.splice(0).reverse()) restore();
    await expectAllSlotsFree(siteIds[0]!, workspaceId);
  });
});
