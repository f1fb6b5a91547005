/**
 * The per-key API limit of the API reference: 1,000 requests a minute, then 429 with Retry-After; in memory
 * on one instance, and shared through Redis by several.
 */
import { expect } from "chai";
import request from "supertest";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { redisAvailable, TEST_REDIS_URL } from "./helpers/test-redis.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

/** Sends `count` requests, 50 at a time, and returns the statuses. */
async function burst(server: TestService["server"], key: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let sent = 0; sent < count; sent += 50) {
    const batch = Array.from({ length: Math.min(50, count - sent) }, () =>
      request(server).get("/v1/sites?limit=1").set("Authorization", `Bearer ${key}`),
    );
    statuses.push(...(await Promise.all(batch)).map((res) => res.status));
  }
  return statuses;
}

describe("API key rate limit (in memory, one instance)", function () {
  let database: TestDatabase;
  let service: TestService;
  let ws: string;
  let key: string;
  /** The statuses of a key's first 1,000 requests in a minute, sent in the before hook. */
  let statuses: number[];

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url);
    ws = await service.workspace();
    key = await service.key(ws);
    statuses = await burst(service.server, key, 1000);
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("admits 1,000 requests a minute per key", () => {
    expect(statuses.filter((s) => s === 200)).to.have.length(1000);
  });

  it("then answers 429 rate_limited with Retry-After and RateLimit-Remaining 0", async () => {
    const over = await request(service.server)
      .get("/v1/sites")
      .set("Authorization", `Bearer ${key}`)
      .expect(429);
    expect(over.body.error.code).to.equal("rate_limited");
    const retryAfter = Number(over.headers["retry-after"]);
    expect(retryAfter).to.be.within(1, 60);
    expect(over.body.error.details.retry_after_seconds).to.equal(retryAfter);
    expect(over.headers["ratelimit-remaining"]).to.equal("0");
  });

  it("gives another key of the same workspace a budget of its own", async () => {
    const other = await service.key(ws);
    await request(service.server)
      .get("/v1/sites")
      .set("Authorization", `Bearer ${other}`)
      .expect(200);
  });
});

describe("API key rate limit shared through Redis by two instances", function () {
  let database: TestDatabase;
  const services: TestService[] = [];

  before(async function () {
    if (!(await redisAvailable())) missing(this, `Redis at ${TEST_REDIS_URL}`);
    database = (await createTestDatabase(sqlite))!;
    for (let i = 0; i < 2; i++)
      services.push(await startTestService(database.url, { REDIS_URL: TEST_REDIS_URL }));
  });
  after(async () => {
    for (const service of services) await service.stop();
    await database?.drop();
  });

  it("admits no more than 1,000 requests a minute across both instances", async () => {
    const [a, b] = services as [TestService, TestService];
    const ws = await a.workspace();
    const key = await a.key(ws);
    const statuses = [...(await burst(a.server, key, 600)), ...(await burst(b.server, key, 450))];
    expect(statuses.filter((s) => s === 200)).to.have.length(1000);
    expect(statuses.filter((s) => s === 429)).to.have.length(50);
  });
});
