/**
 * What the service logs of a request, even at debug level: never its body, headers or query
 * string, which may carry passwords, API keys and customer rows. The real service on SQLite, its
 * logger (createLogger) writing to a stream the test reads.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { expect } from "chai";
import request from "supertest";
import { createLogger } from "../core/compose.ts";
import { startService, type RunningService } from "../core/http/service.ts";
import { loadSettings, type Settings } from "../core/settings.ts";
import { scopes } from "../core/auth/principal.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const SECRET = "hunter2-SECRET";
const QUERY_SECRET = "q-SECRET-in-query";

describe("request logs hold no bodies, headers or query strings", () => {
  let database: TestDatabase | undefined;
  let dataDir: string;
  let settings: Readonly<Settings>;
  let service: RunningService;
  let key: string;
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
  const logged = () => lines.join("");

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-logs-"));
    settings = loadSettings({
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "debug",
      NODE_ENV: "test",
      SITEVOICE_DATA_DIR: dataDir,
      SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
      DATABASE_URL: database.url,
      SITEVOICE_SITES_DIR: "",
    });
    service = await startService(settings, createLogger(settings, stream));
    const workspaceId = "ws_logs";
    await service.store.workspaces.insert({
      id: workspaceId,
      name: "Logs",
      plan: "business",
      created_at: Date.now(),
    });
    const created = await service.keys.create(workspaceId, {
      name: "test",
      scopes: [...scopes],
      mode: "test",
    });
    key = created.value;
  });
  beforeEach(() => {
    lines.length = 0;
  });
  after(async () => {
    await service?.close();
    if (dataDir !== undefined) fs.rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  /** POSTs `body` to /v1/sites as JSON, with a key and a query string, and expects 400. */
  const postMalformed = (body: string) =>
    request(service.server)
      .post(`/v1/sites?token=${QUERY_SECRET}`)
      .set("Authorization", `Bearer ${key}`)
      .set("Content-Type", "application/json")
      .send(body)
      .expect(400);

  /** Every logged line as JSON, for the debug line of the refused body. */
  const entries = () =>
    lines.flatMap((line) => line.split("\n").filter((l) => l !== "")).map((l) => JSON.parse(l));

  it("a malformed JSON body holding a password: the debug line names the failure, not the body", async () => {
    await postMalformed(`{"business_name":"Leak","password":"${SECRET}", `);
    const debug = entries().filter((entry) => entry.level === 20);
    expect(debug.map((entry) => entry.msg)).to.include("The request body is not valid JSON");
    expect(logged()).not.to.include("hunter2");
    expect(logged()).not.to.include(QUERY_SECRET);
    expect(logged()).not.to.include(key);
  });

  it("a body that is no JSON at all: V8's message quotes its start; the log does not", async () => {
    await postMalformed(`${SECRET} is not JSON`);
    const debug = entries().filter((entry) => entry.level === 20);
    expect(debug.map((entry) => entry.msg)).to.include("The request body is not valid JSON");
    expect(logged()).not.to.include("hunter2");
  });

  it("the logger itself redacts a body attached to any logged error", () => {
    const logger = createLogger(settings, stream);
    const upstream = Object.assign(new Error("upstream refused"), { body: `password=${SECRET}` });
    logger.error({ err: upstream }, "a call failed");
    const [entry] = entries();
    expect(entry.err.message).to.equal("upstream refused");
    expect(entry.err.body).to.equal("[redacted]");
    expect(logged()).not.to.include("hunter2");
  });
});
