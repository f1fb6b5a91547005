/**
 * Visitor IDs issued before they were per workspace keep working, on every database. Before, a
 * visitor's `user_fingerprint` was one hash for the whole service, under a key derived from the
 * master key; the rows written then keep that ID. A visitor who came then and again since has
 * rows under both IDs: the lookup by email finds the earlier one on their lead, an export by
 * either ID holds exactly the rows stored under it, and an erasure by the earlier ID removes its
 * rows and leaves the ID in no table.
 *
 * The earlier session is written as the release before wrote it (its row, with the service-wide
 * ID); its transcript, lead and end then go through the widget API as they did, so they carry
 * the ID the session holds.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { seal } from "../core/security/secret-box.ts";
import { newId } from "../core/store/ids.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { waitUntil } from "./helpers/wait-until.ts";
import { signedPost, type WidgetSession } from "./helpers/widget-session.ts";

type Row = Record<string, unknown>;

const MASTER_KEY = crypto.randomBytes(32);
const VISITOR = {
  ip: "203.0.113.58",
  userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36",
};
const EMAIL = "cleo.marchetti@example.com";

/** The visitor's ID as the release before made it: one key, derived from the master key. */
const earlierId = (): string => {
  const key = Buffer.from(
    crypto.hkdfSync("sha256", MASTER_KEY, "", "sitevoice visitor fingerprint", 32),
  );
  return crypto
    .createHmac("sha256", key)
    .update(`${VISITOR.ip}\n${VISITOR.userAgent}`)
    .digest("hex");
};

/** Every table's rows holding `needle`, as `table` names. */
async function tablesHolding(service: TestService, needle: string): Promise<string[]> {
  const knex = service.store.db.knex;
  const tables = ["widget_sessions", "transcripts", "leads", "service_events", "usage_events"];
  const found: string[] = [];
  for (const table of tables) {
    const rows = (await knex(table).select("*")) as Row[];
    if (rows.some((row) => JSON.stringify(row).includes(needle))) found.push(table);
  }
  return found;
}

for (const target of databaseTargets) {
  describe(`visitor IDs issued before they were per workspace, on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let auth: { Authorization: string };
    let siteId: string;
    const earlier = earlierId();
    let current: string;
    /** The visitor's sessions: the one of the release before, and one since. */
    const sessions = { earlier: "", since: "" };
    let earlierLead: string;

    /** A session of the visitor, a transcript and its end; a lead on the earlier one. */
    const converse = async (session: WidgetSession, withLead: boolean) => {
      const post = async (path: string, body: unknown, status: number) => {
        const res = await signedPost(service, session, path, body);
        expect(res.status, `${path}: ${res.text}`).to.equal(status);
        return res;
      };
      const turn = { role: "visitor", text: `Mail ${EMAIL}`, at: new Date().toISOString() };
      await post("/transcript", { turns: [turn] }, 202);
      if (withLead) {
        const lead = await post("/leads", { name: "Cleo Marchetti", email: EMAIL }, 201);
        earlierLead = lead.body.data.lead_id as string;
      }
      await post("/analytics/event", { type: "session_end" }, 202);
    };

    const ask = async (kind: "export" | "delete", fingerprint: string): Promise<Row> => {
      const res = await request(service.server)
        .post(`/v1/user-data/${kind}`)
        .set(auth)
        .send({ site_id: siteId, user_fingerprint: fingerprint });
      expect(res.status, res.text).to.equal(202);
      const id = res.body.data.request_id as string;
      await waitUntil(
        `${kind} ${id} done`,
        async () => (await service.store.userData.get(id))?.status === "done",
        20_000,
      );
      return (await request(service.server).get(`/v1/user-data/requests/${id}`).set(auth)).body
        .data as Row;
    };

    const exported = async (fingerprint: string): Promise<Row> => {
      const link = new URL((await ask("export", fingerprint)).download_url as string);
      const res = await request(service.server)
        .get(link.pathname + link.search)
        .expect(200);
      return JSON.parse(res.text) as Row;
    };

    const ids = (document: Row, section: string, field = "id") =>
      (document[section] as Row[]).map((item) => item[field]);

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, {
        SITEVOICE_MASTER_KEY: MASTER_KEY.toString("base64"),
        // The data requests run as jobs: looked for often, not every 5 seconds.
        SITEVOICE_JOBS_POLL_MS: "200",
      });
      const workspaceId = await service.workspace();
      auth = { Authorization: `Bearer ${await service.key(workspaceId)}` };
      siteId = `earlier-${crypto.randomBytes(4).toString("hex")}`;
      await service.sites.create(operatorPrincipal(workspaceId, "test"), {
        site_id: siteId,
        business_name: siteId,
        business_description: "",
        domain: `${siteId}.example`,
        lead_capture: { enabled: true, fields: ["name", "email"] },
      });
      const site = { siteId, workspaceId, origin: `https://${siteId}.example` };

      const signingSecret = crypto.randomBytes(32).toString("hex");
      const at = Date.now();
      sessions.earlier = newId("sess");
      await service.store.sessions.insert({
        id: sessions.earlier,
        site_id: siteId,
        workspace_id: workspaceId,
        signing_secret: seal(service.ring, signingSecret),
        user_fingerprint: earlier,
        ip_hash: null,
        page_url: `https://${siteId}.example/`,
        created_at: at,
        last_seen_at: at,
        ended_at: null,
        end_reason: null,
      });
      await converse(
        { ...site, session_id: sessions.earlier, signing_secret: signingSecret },
        true,
      );

      const since = await service.sessions.create(
        { site_id: siteId, workspace_id: workspaceId },
        VISITOR,
      );
      sessions.since = since.session.id;
      current = since.session.user_fingerprint;
      await converse(
        { ...site, session_id: since.session.id, signing_secret: since.signingSecret },
        false,
      );
      await service.events.flush();
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    it("the visitor has another ID now than the earlier one", () => {
      expect(current).to.match(/^[0-9a-f]{64}$/);
      expect(current).to.not.equal(earlier);
    });

    it("the lookup by email answers the earlier ID, on the lead stored under it", async () => {
      const res = await request(service.server)
        .get("/v1/user-data/lookup")
        .query({ site_id: siteId, email: EMAIL })
        .set(auth)
        .expect(200);
      expect(res.body.data).to.have.length(1);
      expect(res.body.data[0]).to.include({ user_fingerprint: earlier });
      expect(res.body.data[0].lead_ids).to.deep.equal([earlierLead]);
    });

    it("an export by the earlier ID holds the session, transcript and lead stored under it", async () => {
      const document = await exported(earlier);
      expect(document.user_fingerprint).to.equal(earlier);
      expect(ids(document, "sessions", "session_id")).to.deep.equal([sessions.earlier]);
      expect(ids(document, "transcripts", "session_id")).to.deep.equal([sessions.earlier]);
      expect(ids(document, "leads")).to.deep.equal([earlierLead]);
    });

    it("an export by the current ID holds the session stored under it since", async () => {
      const document = await exported(current);
      expect(ids(document, "sessions", "session_id")).to.deep.equal([sessions.since]);
      expect(ids(document, "transcripts", "session_id")).to.deep.equal([sessions.since]);
      expect(ids(document, "leads")).to.deep.equal([]);
    });

    describe("an erasure by the earlier ID", () => {
      let result: Row;

      before(async () => {
        result = (await ask("delete", earlier)).result as Row;
      });

      it("removes the transcript, the lead's personal fields and the session's ID", () => {
        expect(result).to.include({
          transcripts_deleted: 1,
          leads_erased: 1,
          sessions_redacted: 1,
        });
      });

      it("leaves the earlier ID in no table", async () => {
        expect(await tablesHolding(service, earlier)).to.deep.equal([]);
      });

      it("leaves the rows stored under the current ID", async () => {
        const session = await service.store.sessions.get(sessions.since);
        expect(session?.user_fingerprint).to.equal(current);
        const transcripts = await service.store.db
          .knex("transcripts")
          .where({ session_id: sessions.since });
        expect(transcripts).to.have.length(1);
      });
    });
  });
}
