/**
 * The outbound policy end to end, on the real service: a key limited to one site points that
 * site's SQL adapter at the service's own network, and the query is refused before any
 * connection is made, unless the operator allowed the database with SITEVOICE_OUTBOUND_ALLOW.
 * None of these services sets SITEVOICE_ALLOW_PRIVATE_NETWORKS unless the case says so.
 */
import { once } from "node:events";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import mysql from "mysql2/promise";
import pg from "pg";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const target = (client: string) => {
  const found = databaseTargets.find((t) => t.client === client);
  if (found === undefined) throw new Error(`no ${client} test target`);
  return found;
};
const sqlite = target("sqlite");
const mariadb = target("mysql");
const postgres = target("postgres");

const NOT_ALLOWED = /^the database host is not allowed: /;

const ROWS = [
  { id: 1, name: "Oak table" },
  { id: 2, name: "Wool rug" },
];

/** The collection over the seeded `catalog` table. */
const catalog = { source: "catalog", searchable_fields: [], filterable_fields: ["id"] };
const collections = (source = "catalog", display = ["id", "name"]) => ({
  items: { ...catalog, source, display_fields: display },
});

/**
 * Listeners that count and drop every connection: proof that nothing connected. One takes TCP on
 * 127.0.0.1 and ::1, the other is a PostgreSQL Unix socket in `socketDir` (for port 5432).
 */
async function startTrap(): Promise<{
  port: number;
  socketDir: string;
  connections: () => number;
  close(): void;
}> {
  let count = 0;
  const drop = (socket: net.Socket) => {
    count++;
    socket.destroy();
  };
  const tcp = net.createServer(drop);
  // `::` with ipv6Only off takes 127.0.0.1 and ::1 alike on one port.
  tcp.listen({ port: 0, host: "::", ipv6Only: false });
  await once(tcp, "listening");
  const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-trap-"));
  const unix = net.createServer(drop);
  unix.listen(path.join(socketDir, ".s.PGSQL.5432"));
  await once(unix, "listening");
  return {
    port: (tcp.address() as net.AddressInfo).port,
    socketDir,
    connections: () => count,
    close() {
      tcp.close();
      unix.close();
      fs.rmSync(socketDir, { recursive: true, force: true });
    },
  };
}

/** `url` with another host (and port), keeping user, password and database. */
function moved(url: string, host: string, port?: number): string {
  const changed = new URL(url);
  changed.hostname = host;
  if (port !== undefined) changed.port = String(port);
  return changed.toString();
}

describe("outbound policy: the SQL adapter of a site-scoped key", function () {
  this.timeout(60_000);
  let store: TestDatabase | undefined;
  let mysqlDb: TestDatabase | undefined;
  let pgDb: TestDatabase | undefined;
  let trap: Awaited<ReturnType<typeof startTrap>>;
  const services: TestService[] = [];

  /** A service with one site and a key limited to it: PATCH that site, then query it. */
  async function tenant(env: Record<string, string>) {
    const service = await startTestService((store as TestDatabase).url, env);
    services.push(service);
    const workspaceId = await service.workspace();
    // Site ids are unique in the store the services share.
    const siteId = `shop-${services.length}`;
    await service.sites.create(operatorPrincipal(workspaceId, "test"), {
      site_id: siteId,
      business_name: "Nordic Home",
      business_description: "Furniture",
      domain: "nordichome.example",
    });
    const key = await service.key(workspaceId, {
      scopes: ["sites:write", "query:test"],
      siteIds: [siteId],
    });
    const auth = { Authorization: `Bearer ${key}` };
    return {
      /** The answer to pointing the site at `connectionString`. */
      save(type: "mysql" | "postgres", connectionString: string) {
        return request(service.server)
          .patch(`/v1/sites/${siteId}`)
          .set(auth)
          .send({ adapter: { type, config: { connectionString }, collections: collections() } });
      },
      /** Points the site at `connectionString` and queries `items`; the answer. */
      async search(type: "mysql" | "postgres", connectionString: string, source?: string) {
        await request(service.server)
          .patch(`/v1/sites/${siteId}`)
          .set(auth)
          .send({
            adapter: {
              type,
              config: { connectionString },
              collections:
                source === undefined ? collections() : collections(source, ["User", "Host"]),
            },
          })
          .expect(200);
        const res = await request(service.server)
          .post(`/v1/${siteId}/query`)
          .set(auth)
          .send({ collection: "items", ...(source === undefined ? { sort_by: "id" } : {}) });
        return { res };
      },
    };
  }

  /**
   * Refused by the policy, not by a failed or timed-out connection (that says "could not connect
   * to the database"), and nothing has connected to the trap: the cases aimed at it show that the
   * refusal comes before any connection is tried.
   */
  const expectRefused = (answer: { res: request.Response }) => {
    const { res } = answer;
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error.code).to.equal("adapter_error");
    expect(res.body.error.details.error).to.match(NOT_ALLOWED);
    expect(trap.connections(), "connections to the trap").to.equal(0);
  };
  const expectRows = (answer: { res: request.Response }) => {
    const { res } = answer;
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.items).to.deep.equal(ROWS);
  };

  before(async function () {
    store = await createTestDatabase(sqlite);
    if (store === undefined) missing(this, sqlite.label);
    mysqlDb = await createTestDatabase(mariadb);
    if (mysqlDb === undefined) missing(this, mariadb.label);
    pgDb = await createTestDatabase(postgres);
    if (pgDb === undefined) missing(this, postgres.label);
    const my = await mysql.createConnection({ uri: mysqlDb.url });
    await my.query("CREATE TABLE catalog (id int PRIMARY KEY, name varchar(40) NOT NULL)");
    await my.query("INSERT INTO catalog VALUES (1, 'Oak table'), (2, 'Wool rug')");
    await my.end();
    const client = new pg.Client({ connectionString: pgDb.url });
    await client.connect();
    await client.query("CREATE TABLE catalog (id int PRIMARY KEY, name text NOT NULL)");
    await client.query("INSERT INTO catalog VALUES (1, 'Oak table'), (2, 'Wool rug')");
    await client.end();
    trap = await startTrap();
  });
  after(async () => {
    for (const service of services) await service.stop();
    trap?.close();
    await mysqlDb?.drop();
    await pgDb?.drop();
    await store?.drop();
  });

  describe("by default", () => {
    let site: Awaited<ReturnType<typeof tenant>>;
    before(async () => {
      site = await tenant({});
    });

    it("refuses the local MariaDB's mysql.user (the reported attack)", async () => {
      const answer = await site.search("mysql", "mysql://root@127.0.0.1:3306/mysql", "mysql.user");
      expectRefused(answer);
      expect(answer.res.body.data).to.equal(undefined);
    });

    for (const [type, scheme] of [
      ["mysql", "mysql://root"],
      ["postgres", "postgres://postgres"],
    ] as const) {
      for (const host of ["127.0.0.1", "[::1]"]) {
        it(`refuses ${type} at ${host} without connecting`, async () => {
          expectRefused(await site.search(type, `${scheme}@${host}:${trap.port}/test`));
        });
      }
      for (const host of ["10.0.0.5", "169.254.169.254"]) {
        it(`refuses ${type} at ${host}, not naming it`, async () => {
          const port = type === "mysql" ? 3306 : 5432;
          const answer = await site.search(type, `${scheme}@${host}:${port}/test`);
          expectRefused(answer);
          expect(answer.res.body.error.details.error).not.to.include(host);
        });
      }
    }

    it("reports a closed port only as not connecting, naming neither host nor port", async () => {
      // The policy is lifted for 127.0.0.1 here only to reach a port where nothing listens.
      const allowed = await tenant({ SITEVOICE_OUTBOUND_ALLOW: "127.0.0.1" });
      const probe = net.createServer();
      probe.listen(0, "127.0.0.1");
      await once(probe, "listening");
      const { port } = probe.address() as net.AddressInfo;
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      const { res } = await allowed.search("mysql", `mysql://root@127.0.0.1:${port}/test`);
      expect(res.status).to.equal(422);
      expect(res.body.error.details.error).to.equal("could not connect to the database");
    });
  });

  describe("with private networks allowed", () => {
    let site: Awaited<ReturnType<typeof tenant>>;
    before(async () => {
      site = await tenant({
        SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
        SITEVOICE_OUTBOUND_ALLOW: "169.254.169.254,169.254.0.0/16,168.63.129.16",
      });
    });

    it("still refuses the cloud metadata address, even listed in SITEVOICE_OUTBOUND_ALLOW", async () => {
      expectRefused(await site.search("mysql", "mysql://root@169.254.169.254:3306/test"));
    });

    it("still refuses Azure's wireserver address 168.63.129.16", async () => {
      expectRefused(await site.search("postgres", "postgres://postgres@168.63.129.16:5432/test"));
    });

    it("refuses a PostgreSQL Unix-socket host (the service's own machine)", async () => {
      const name = new URL((pgDb as TestDatabase).url).pathname.slice(1);
      const url = `postgres://postgres@${encodeURIComponent(trap.socketDir)}/${name}`;
      expectRefused(await site.search("postgres", url));
    });

    it("refuses a Unix socket given as the host parameter when the site is saved", async () => {
      const name = new URL((pgDb as TestDatabase).url).pathname.slice(1);
      const url = `postgres://postgres@db.example/${name}?host=${trap.socketDir}`;
      const res = await site.save("postgres", url);
      expect([res.status, res.body.error?.details?.field]).to.deep.equal([
        400,
        "adapter.config.connectionString",
      ]);
      expect(trap.connections()).to.equal(0);
    });
  });

  describe("with SITEVOICE_OUTBOUND_ALLOW=127.0.0.1:3306,127.0.0.1:5432", () => {
    let site: Awaited<ReturnType<typeof tenant>>;
    before(async () => {
      site = await tenant({ SITEVOICE_OUTBOUND_ALLOW: "127.0.0.1:3306,127.0.0.1:5432" });
    });

    it("answers the rows of a MariaDB table at 127.0.0.1:3306", async () => {
      expectRows(await site.search("mysql", moved((mysqlDb as TestDatabase).url, "127.0.0.1")));
    });

    it("answers the rows of a PostgreSQL table at 127.0.0.1:5432", async () => {
      expectRows(await site.search("postgres", moved((pgDb as TestDatabase).url, "127.0.0.1")));
    });

    it("refuses another port of the same address without connecting", async () => {
      const url = moved((mysqlDb as TestDatabase).url, "127.0.0.1", trap.port);
      expectRefused(await site.search("mysql", url));
    });
  });

  describe("with SITEVOICE_OUTBOUND_ALLOW=localhost", () => {
    let site: Awaited<ReturnType<typeof tenant>>;
    before(async () => {
      site = await tenant({ SITEVOICE_OUTBOUND_ALLOW: "localhost" });
    });

    it("answers the rows of a MariaDB table at localhost", async () => {
      expectRows(await site.search("mysql", moved((mysqlDb as TestDatabase).url, "localhost")));
    });

    it("answers the rows of a PostgreSQL table at localhost", async () => {
      expectRows(await site.search("postgres", moved((pgDb as TestDatabase).url, "localhost")));
    });

    it("refuses the same database by its IP address, which the name entry does not cover", async () => {
      const url = moved((mysqlDb as TestDatabase).url, "127.0.0.1");
      expectRefused(await site.search("mysql", url));
    });
  });
});
