/**
 * No secret or token is stored in clear, on each database: after a whole widget walk (a site with a
 * REST adapter's bearer token and a database password, an API key, a session's signing secret and
 * provider token, the workspace's visitor-ID key, signed queries, events, a lead with its update
 * token used once, a transcript, the end of the session), every row of every table is dumped and searched for each of them.
 * The walk and the dump run once, in the before hook; each secret is then a test of its own.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import knexFactory, { type Knex } from "knex";
import request from "supertest";
import type { BusEvent } from "../core/events/event-bus.ts";
import { CONFORMANCE_FIELDS } from "../core/host/testing/index.ts";
import { open } from "../core/security/secret-box.ts";
import { startDrfServer, type DrfServer } from "./helpers/drf-server.ts";
import { startOpenAiStandin, type OpenAiStandin } from "./helpers/openai-standin.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { signedPost } from "./helpers/widget-session.ts";

const ORIGIN = "https://dump.example";

/** Every row of every table of the store, as text. */
async function dumpAll(knex: Knex, client: string): Promise<string> {
  const tables =
    client === "sqlite"
      ? (
          await knex.raw<{ name: string }[]>(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
          )
        ).map((row) => row.name)
      : client === "postgres"
        ? (
            await knex.raw<{ rows: { tablename: string }[] }>(
              "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()",
            )
          ).rows.map((row) => row.tablename)
        : ((await knex.raw("SHOW TABLES")) as unknown as [Record<string, string>[]])[0].map(
            (row) => Object.values(row)[0] as string,
          );
  expect(tables, "tables").to.include.members(["sites", "leads", "widget_sessions", "api_keys"]);
  const parts: string[] = [];
  for (const table of tables) {
    parts.push(`== ${table}\n${JSON.stringify(await knex(table).select("*"))}`);
  }
  return parts.join("\n");
}

const knexOf = (url: string, client: string): Knex =>
  knexFactory(
    client === "sqlite"
      ? {
          client: "better-sqlite3",
          connection: { filename: url.slice("sqlite:".length) },
          useNullAsDefault: true,
        }
      : client === "postgres"
        ? { client: "pg", connection: url }
        : { client: "mysql2", connection: { uri: url } as never },
  );

/** What must never be found, by name. */
const SECRET_NAMES = [
  "API key",
  "master key (base64)",
  "master key (hex)",
  "OpenAI key",
  "REST bearer token",
  "database password",
  "signing secret",
  "ephemeral provider token",
  "lead update token",
  "workspace visitor-ID key",
] as const;

for (const target of databaseTargets) {
  describe(`no secret in any row on ${target.label}`, function () {
    this.timeout(30_000);
    let database: TestDatabase | undefined;
    let backend: DrfServer;
    let openai: OpenAiStandin;
    let service: TestService;
    const masterKey = crypto.randomBytes(32);
    const bus: BusEvent[] = [];
    /** What must never be found, by name (SECRET_NAMES). */
    const secrets: Record<string, string> = {};
    /** The Authorization header the REST backend last received, after the signed query. */
    let backendAuthorization: unknown;
    let sessionId: string;
    /** Every row of every table, after the walk. */
    let dump: string;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      backend = await startDrfServer();
      openai = await startOpenAiStandin();
      service = await startTestService(database.url, {
        SITEVOICE_MASTER_KEY: masterKey.toString("base64"),
        SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
        OPENAI_API_KEY: openai.apiKey,
        OPENAI_BASE_URL: openai.baseUrl,
      });
      service.events.subscribe((event) => bus.push(event));

      // The whole widget walk.
      const workspace = await service.workspace();
      const key = await service.key(workspace);
      const auth = { Authorization: `Bearer ${key}` };
      secrets["API key"] = key;
      secrets["master key (base64)"] = masterKey.toString("base64");
      secrets["master key (hex)"] = masterKey.toString("hex");
      secrets["OpenAI key"] = openai.apiKey;
      secrets["REST bearer token"] = `tok_${crypto.randomBytes(16).toString("hex")}`;
      secrets["database password"] = `pw_${crypto.randomBytes(12).toString("hex")}`;

      const rest = {
        business_name: "Dump Shop",
        business_description: "Furniture",
        domain: "dump.example",
        lead_capture: { enabled: true, fields: ["name", "email"] },
        adapter: {
          type: "rest",
          config: {
            baseUrl: `${backend.origin}/api`,
            queryMode: "querystring",
            auth: { type: "bearer", value: secrets["REST bearer token"] },
          },
          collections: { products: { source: "/products/", ...CONFORMANCE_FIELDS } },
        },
      };
      const site = (
        await request(service.server).post("/v1/sites").set(auth).send(rest).expect(201)
      ).body.data;
      const siteId = site.site_id as string;
      // A second site on PostgreSQL credentials, changed once: versions hold both.
      const pg = (
        await request(service.server)
          .post("/v1/sites")
          .set(auth)
          .send({
            ...rest,
            domain: "dump-pg.example",
            adapter: {
              type: "postgres",
              config: {
                connectionString: `postgres://shop:${secrets["database password"]}@db.dump.example:5432/shop`,
              },
              collections: {},
            },
          })
          .expect(201)
      ).body.data;
      await request(service.server)
        .patch(`/v1/sites/${pg.site_id}`)
        .set(auth)
        .send({ personality: "Brief." })
        .expect(200);

      // The widget: config, token, signed query, event, lead, transcript, session end.
      await request(service.server).get(`/v1/${siteId}/config`).set("Origin", ORIGIN).expect(200);
      const session = (
        await request(service.server)
          .post(`/v1/${siteId}/token`)
          .set("Origin", ORIGIN)
          .send({ page_url: `${ORIGIN}/` })
          .expect(200)
      ).body.data;
      secrets["signing secret"] = session.signing_secret;
      secrets["ephemeral provider token"] = session.ephemeral_token.value;
      // Made for the token's session: its opened text is what a row in clear would hold.
      const visitorIdKey = await service.store.workspaceSecrets.visitorIdKey(workspace);
      expect(visitorIdKey, "the workspace's visitor-ID key").to.be.a("string");
      secrets["workspace visitor-ID key"] = open(service.ring, visitorIdKey!);
      const signed = async (path: string, payload: unknown, status: number) => {
        const res = await signedPost(
          service,
          { ...session, siteId, origin: ORIGIN },
          path,
          payload,
        );
        expect(res.status, JSON.stringify(res.body)).to.equal(status);
        return res;
      };
      await signed("/query", { collection: "products", query: "sofa" }, 200);
      backendAuthorization = backend.requests.at(-1)?.headers.authorization;
      await signed("/analytics/event", { type: "function_call", function_name: "x" }, 202);
      const lead = (
        await signed("/leads", { name: "Ana", email: "ana@dump.example", message: "Hi" }, 201)
      ).body.data;
      await service.events.flush();
      const captured = bus.find((e) => e.kind === "service" && e.event.type === "lead.captured");
      const updateToken = (captured?.event as unknown as { data: { update_token: string } }).data
        .update_token;
      secrets["lead update token"] = updateToken;
      await request(service.server)
        .patch(`/v1/public/leads/${lead.lead_id}`)
        .set("Authorization", `Bearer ${updateToken}`)
        .send({ status: "contacted" })
        .expect(200);
      await signed(
        "/transcript",
        { turns: [{ role: "visitor", text: "Hello", at: "2026-11-23T10:00:00Z" }] },
        202,
      );
      await signed("/analytics/event", { type: "session_end" }, 202);
      await service.events.flush();

      sessionId = session.session_id;

      const knex = knexOf(database!.url, target.client);
      try {
        dump = await dumpAll(knex, target.client);
      } finally {
        await knex.destroy();
      }
    });
    after(async () => {
      await service?.stop();
      await openai?.close();
      await backend?.close();
      await database?.drop();
    });

    it("the walk really used the REST token: the backend got it", () => {
      expect(backendAuthorization).to.equal(`Bearer ${secrets["REST bearer token"]}`);
    });

    it("the dump is real: it holds what the walk stored in the open", () => {
      expect(dump).to.include("ana@dump.example");
      expect(dump).to.include(sessionId);
    });

    it("the walk collected each of the ten secrets", () => {
      expect(Object.keys(secrets)).to.have.members([...SECRET_NAMES]);
    });

    for (const name of SECRET_NAMES) {
      it(`after the whole widget walk, no row of any table holds the ${name}`, () => {
        const secret = secrets[name]!;
        expect(secret.length, name).to.be.at.least(16);
        expect(dump.includes(secret), `${name} found in a row`).to.equal(false);
      });
    }
  });
}
