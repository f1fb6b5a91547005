/**
 * Liveness and readiness: `/v1/health/live` answers while the process does; `/v1/health/ready`
 * says 503 when Redis stops answering (and 200 again once it is back), shows whether this instance
 * runs jobs, and turns 503 as soon as a SIGTERM starts the drain, while the instance still serves.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import request from "supertest";
import { freePort, run, serving, type Run } from "./helpers/cli-process.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { redisAvailable, TEST_REDIS_URL } from "./helpers/test-redis.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { waitUntil } from "./helpers/wait-until.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

/** A TCP forwarder to the real Redis that a test can cut (as if Redis went away) and restore. */
async function redisLine() {
  const target = new URL(TEST_REDIS_URL);
  const sockets = new Set<net.Socket>();
  let up = true;
  const server = net.createServer((client) => {
    if (!up) return client.destroy();
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `redis://127.0.0.1:${port}/9`,
    cut() {
      up = false;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      up = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("liveness and readiness", function () {
  this.timeout(60_000);
  let database: TestDatabase;

  before(async function () {
    if (!(await redisAvailable())) {
      if (process.env.CI === "true") throw new Error("Redis is not running");
      this.skip();
    }
    database = (await createTestDatabase(sqlite))!;
  });
  after(async () => database?.drop());

  describe("with Redis and jobs", () => {
    let service: TestService;
    let line: Awaited<ReturnType<typeof redisLine>>;
    before(async () => {
      line = await redisLine();
      service = await startTestService(database.url, { REDIS_URL: line.url, SITEVOICE_JOBS: "on" });
    });
    after(async () => {
      line.restore();
      await service?.stop();
      await line?.close();
    });

    it("is ready while its database and Redis answer and its jobs run", async () => {
      const res = await request(service.server).get("/v1/health/ready").expect(200);
      expect(res.body.data).to.deep.equal({
        status: "ready",
        checks: {
          database: { ok: true },
          redis: { ok: true },
          jobs: { ok: true, processing: true },
          draining: false,
        },
      });
      const report = await request(service.server).get("/v1/health").expect(200);
      expect(report.body.data).to.include({ status: "ok", ready: true });
    });

    it("is not ready while Redis is away, alive all the same, and ready again once it is back", async () => {
      line.cut();
      let down: request.Response | undefined;
      await waitUntil("not ready", async () => {
        down = await request(service.server).get("/v1/health/ready");
        return down.status === 503;
      });
      expect(down!.body.data.status).to.equal("not_ready");
      expect(down!.body.data.checks.redis.ok).to.equal(false);
      expect(down!.body.data.checks.database.ok).to.equal(true);
      await request(service.server).get("/v1/health/live").expect(200);
      line.restore();
      await waitUntil(
        "ready again",
        async () => (await request(service.server).get("/v1/health/ready")).status === 200,
      );
    });
  });

  it("says when this instance runs no jobs, and needs no Redis when none is configured", async () => {
    const service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
    try {
      const res = await request(service.server).get("/v1/health/ready").expect(200);
      expect(res.body.data.checks).to.deep.include({
        redis: null,
        jobs: { ok: true, processing: false },
      });
    } finally {
      await service.stop();
    }
  });

  it("drains on SIGTERM: not ready at once, still serving for SITEVOICE_DRAIN_MS, then exits 0", async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-drain-"));
    const port = await freePort();
    let started: Run | undefined;
    try {
      started = run(["serve"], cwd, {
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: database.url,
        SITEVOICE_SITES_DIR: "",
        SITEVOICE_DRAIN_MS: "2000",
      });
      await serving(started);
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/v1/health/ready`)).status).to.equal(200);
      started.child.kill("SIGTERM");
      let draining: { data: { checks: { draining: boolean } } } | undefined;
      await waitUntil("draining", async () => {
        const res = await fetch(`${base}/v1/health/ready`);
        if (res.status !== 503) return false;
        draining = (await res.json()) as typeof draining;
        return true;
      });
      expect(draining!.data.checks.draining).to.equal(true);
      // Still serving while the balancer takes it out.
      expect((await fetch(`${base}/v1/health/live`)).status).to.equal(200);
      expect(await started.exited).to.equal(0);
      expect(started.output()).to.include("draining: not ready, still serving");
    } finally {
      if (started?.child.exitCode === null) started.child.kill("SIGKILL");
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });
});
