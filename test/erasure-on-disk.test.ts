/**
 * What an erasure leaves in SQLite's files: nothing of the visitor's words. A visitor's
 * transcripts and lead carry a marker no other row holds; once their erasure is done (through the
 * API and the job that runs it) the raw bytes of the database, its write-ahead log and its
 * shared-memory file hold the marker nowhere, neither in a page the erasure freed nor in a frame
 * of the log an earlier commit wrote. Deleting a site does the same for its transcripts.
 * (PostgreSQL and MariaDB keep such bytes until their own vacuum and purge: the README says what
 * an operator runs.)
 */
import crypto from "node:crypto";
import fs from "node:fs";
import BetterSqlite from "better-sqlite3";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { waitUntil } from "./helpers/wait-until.ts";
import { signedPost } from "./helpers/widget-session.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const FILES = ["", "-wal", "-shm"];

/** The files SQLite keeps the database in (those that exist), by suffix. */
const filesOf = (path: string): Record<string, Buffer> =>
  Object.fromEntries(
    FILES.filter((suffix) => fs.existsSync(path + suffix)).map((suffix) => [
      `test.db${suffix}`,
      fs.readFileSync(path + suffix),
    ]),
  );

/** The files among `files` whose raw bytes hold `marker`. */
const holding = (files: Record<string, Buffer>, marker: string): string[] =>
  Object.entries(files)
    .filter(([, bytes]) => bytes.includes(marker))
    .map(([name]) => name);

describe("an erasure on SQLite leaves the visitor's words in none of its files", function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let service: TestService;
  let path: string;
  let workspaceId: string;
  let auth: { Authorization: string };

  const newSite = async (): Promise<string> => {
    const siteId = `disk-${crypto.randomBytes(4).toString("hex")}`;
    await service.sites.create(operatorPrincipal(workspaceId, "test"), {
      site_id: siteId,
      business_name: siteId,
      business_description: "",
      domain: `${siteId}.example`,
      lead_capture: { enabled: true, fields: ["name", "email"] },
    });
    return siteId;
  };

  /**
   * Two sessions of one visitor on `siteId`, each with a transcript holding `marker`; a lead on
   * the first, with `message`.
   */
  const converse = async (siteId: string, marker: string, message: string): Promise<string> => {
    let fingerprint = "";
    for (const n of [1, 2]) {
      const { session, signingSecret } = await service.sessions.create(
        { site_id: siteId, workspace_id: workspaceId },
        { ip: "198.51.100.61", userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/132.0" },
      );
      fingerprint = session.user_fingerprint;
      const widget = {
        siteId,
        origin: `https://${siteId}.example`,
        session_id: session.id,
        signing_secret: signingSecret,
      };
      const post = async (path: string, body: unknown, status: number) => {
        const res = await signedPost(service, widget, path, body);
        expect(res.status, `${path}: ${res.text}`).to.equal(status);
      };
      // Long enough to spill into overflow pages, as a real conversation does.
      const text = `${marker} ${"my kitchen is twelve feet long and ".repeat(150)}${marker}`;
      const at = new Date().toISOString();
      await post("/transcript", { turns: [{ role: "visitor", text, at }] }, 202);
      if (n === 1) {
        await post("/leads", { name: "Dana", email: "dana@example.com", message }, 201);
      }
    }
    await service.events.flush();
    return fingerprint;
  };

  before(async function () {
    database = (await createTestDatabase(sqlite))!;
    path = database.url.slice("sqlite:".length);
    service = await startTestService(database.url);
    workspaceId = await service.workspace();
    auth = { Authorization: `Bearer ${await service.key(workspaceId)}` };
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  describe("a visitor's erasure", () => {
    const marker = `ERASE-ME-${crypto.randomBytes(8).toString("hex")}`;
    /** The files holding the marker before and after. */
    let was: string[];
    let left: string[];

    before(async () => {
      const siteId = await newSite();
      const fingerprint = await converse(siteId, marker, `Call me back: ${marker}`);
      was = holding(filesOf(path), marker);
      const asked = await request(service.server)
        .post("/v1/user-data/delete")
        .set(auth)
        .send({ site_id: siteId, user_fingerprint: fingerprint });
      expect(asked.status, asked.text).to.equal(202);
      const id = asked.body.data.request_id as string;
      await waitUntil(
        "the erasure done",
        async () => (await service.store.userData.get(id))?.status === "done",
        20_000,
      );
      left = holding(filesOf(path), marker);
    });

    it("had the visitor's words on disk before", () => {
      expect(was).to.not.deep.equal([]);
    });

    it("leaves them in none of the database, its log and its shared-memory file", () => {
      expect(left).to.deep.equal([]);
    });
  });

  describe("an erasure while another process reads the database", () => {
    const marker = `READ-HELD-${crypto.randomBytes(8).toString("hex")}`;
    let reader: BetterSqlite.Database | undefined;
    /** The files holding the marker while the read went on, and after the sweep. */
    let held: string[];
    let left: string[];

    before(async () => {
      const siteId = await newSite();
      const fingerprint = await converse(siteId, marker, `Call me back: ${marker}`);
      // A read transaction of its own, as a backup or the sqlite3 shell holds one.
      reader = new BetterSqlite(path, { readonly: true });
      reader.exec("BEGIN");
      reader.prepare("SELECT count(*) FROM transcripts").get();
      const asked = await request(service.server)
        .post("/v1/user-data/delete")
        .set(auth)
        .send({ site_id: siteId, user_fingerprint: fingerprint });
      expect(asked.status, asked.text).to.equal(202);
      const id = asked.body.data.request_id as string;
      // Done all the same: the log is what waits.
      await waitUntil(
        "the erasure done while the read goes on",
        async () => (await service.store.userData.get(id))?.status === "done",
        20_000,
      );
      held = holding(filesOf(path), marker);
      reader.exec("COMMIT");
      reader.close();
      reader = undefined;
      await service.userData.sweep();
      left = holding(filesOf(path), marker);
    });
    after(() => reader?.close());

    it("cannot empty the log while the read holds it", () => {
      expect(held).to.include("test.db-wal");
    });

    it("the sweep after the read leaves the words in none of the files", () => {
      expect(left).to.deep.equal([]);
    });
  });

  describe("a site's deletion", () => {
    const marker = `DELETE-SITE-${crypto.randomBytes(8).toString("hex")}`;
    /** The files holding the marker before and after. */
    let was: string[];
    let left: string[];

    before(async () => {
      const siteId = await newSite();
      // The lead's message stays in its lead.captured event, which outlives the site 13 months
      // (README, "Where visitor data lives"): the transcripts are what the deletion removes.
      await converse(siteId, marker, "Call me back");
      was = holding(filesOf(path), marker);
      await request(service.server).delete(`/v1/sites/${siteId}`).set(auth).expect(200);
      left = holding(filesOf(path), marker);
    });

    it("had the visitors' words on disk before", () => {
      expect(was).to.not.deep.equal([]);
    });

    it("leaves them in none of the database, its log and its shared-memory file", () => {
      expect(left).to.deep.equal([]);
    });
  });
});
