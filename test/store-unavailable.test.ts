/**
 * A database that restarts or cannot be reached for a while is 503 service_unavailable with
 * Retry-After, never 500: a client that retries 503 (as the README asks) rides it out, and the
 * same requests answer again once the database is back. The database is the machine's real one,
 * reached through a TCP proxy the test cuts and restores.
 */
import { expect } from "chai";
import os from "node:os";
import { parseDatabaseUrl } from "../core/settings-values.ts";
import { openDatabase } from "../core/store/database.ts";
import { isStoreUnavailable } from "../core/store/store-errors.ts";
import { startTcpProxy, type TcpProxy } from "./helpers/tcp-proxy.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

for (const target of databaseTargets.filter((t) => t.client !== "sqlite")) {
  describe(`a database that goes away (${target.label})`, function () {
    let database: TestDatabase;
    let proxy: TcpProxy;
    let service: TestService;
    let key: string;
    const get = (path: string) =>
      fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${key}` } });

    before(async function () {
      const created = await createTestDatabase(target);
      if (created === undefined) missing(this, target.label);
      database = created;
      const url = new URL(database.url);
      proxy = await startTcpProxy(url.hostname, Number(url.port));
      url.port = String(proxy.port);
      service = await startTestService(url.toString());
      key = await service.key(await service.workspace());
    });

    after(async () => {
      await service?.stop();
      await proxy?.close();
      await database?.drop();
    });

    it("answers 200 while it is there", async () => {
      expect((await get("/v1/sites")).status).to.equal(200);
    });

    it("answers 503 service_unavailable with Retry-After while it is away, not 500", async () => {
      await proxy.cut();
      try {
        for (const path of ["/v1/sites", "/v1/leads", "/v1/sites/nope"]) {
          const res = await get(path);
          const body = (await res.json()) as { error: { code: string; message: string } };
          expect(res.status, `${path}: ${JSON.stringify(body)}`).to.equal(503);
          expect(body.error.code).to.equal("service_unavailable");
          expect(body.error.message).to.match(/database/i);
          expect(res.headers.get("retry-after")).to.equal("1");
        }
        const ready = await fetch(`${service.url}/v1/health/ready`);
        expect(ready.status).to.equal(503);
      } finally {
        await proxy.restore();
      }
    });

    it("tells a connection closed under a query (the server stopping) from a fault in the query", async () => {
      const url = new URL(database.url);
      url.port = String(proxy.port);
      const knex = openDatabase(parseDatabaseUrl(url.toString(), os.tmpdir())).knex;
      let restored = false;
      try {
        const sleep = target.client === "postgres" ? "select pg_sleep(5)" : "select sleep(5)";
        const running = knex.raw(sleep).then(
          () => undefined,
          (error: unknown) => error,
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        await proxy.cut({ graceful: true });
        const closed = await running;
        expect(closed, "the query failed").to.be.instanceOf(Error);
        expect(isStoreUnavailable(closed), String(closed)).to.equal(true);
        await proxy.restore();
        restored = true;
        const wrong = await knex.raw("select * from no_such_table").catch((e: unknown) => e);
        expect(wrong, "the query failed").to.be.instanceOf(Error);
        expect(isStoreUnavailable(wrong), String(wrong)).to.equal(false);
      } finally {
        if (!restored) await proxy.restore().catch(() => undefined);
        await knex.destroy();
      }
    });

    it("answers again once it is back, on the same pool", async () => {
      expect((await get("/v1/sites")).status).to.equal(200);
      expect((await fetch(`${service.url}/v1/health/ready`)).status).to.equal(200);
    });
  });
}
