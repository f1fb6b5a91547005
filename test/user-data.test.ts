/**
 * Visitor data rights end to end on every database: two visitors on two sites (sessions, usage
 * events, transcripts, leads, webhook deliveries), seeded through the widget API. One visitor's
 * export holds exactly their data on that site, behind a signed link that needs no key and
 * refuses a changed signature or expiry. Their erasure leaves the other visitor (and their own
 * data on the other site) untouched, keeps the rollup totals, and once done on both sites leaves
 * no copy of their email, phone or fingerprint in any table or export; a second erasure succeeds
 * with nothing to remove.
 */
import { expect } from "chai";
import request from "supertest";
import { open } from "../core/security/secret-box.ts";
import { DownloadLinks } from "../core/user-data/download-link.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { seedVisitors, type Seeded, type Visitor } from "./helpers/visitor-seed.ts";

type Row = Record<string, unknown>;

/** Every table of the database, by name. */
async function tableNames(service: TestService): Promise<string[]> {
  const knex = service.store.db.knex;
  switch (service.store.client) {
    case "sqlite":
      return (
        await knex.raw<{ name: string }[]>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
        )
      ).map((row) => row.name);
    case "postgres":
      return (
        await knex.raw<{ rows: { name: string }[] }>(
          "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()",
        )
      ).rows.map((row) => row.name);
    default:
      return (
        (await knex.raw(
          "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()",
        )) as [{ name: string }[]]
      )[0].map((row) => row.name);
  }
}

/** Each table's rows holding any of `needles` (case-insensitive), as text. */
async function grepTables(service: TestService, needles: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const table of await tableNames(service)) {
    const rows = (await service.store.db.knex(table).select("*")) as Row[];
    for (const row of rows) {
      const text = JSON.stringify(row).toLowerCase();
      for (const needle of needles) {
        if (text.includes(needle.toLowerCase())) found.push(`${table}: ${needle}`);
      }
    }
  }
  return found;
}

/** The export store's documents, opened. */
async function exportDocuments(service: TestService): Promise<string[]> {
  const rows = (await service.store.db.knex("user_data_exports").select("document")) as {
    document: string;
  }[];
  return rows.map((row) => open(service.ring, row.document));
}

/** The usage rollup totals per site and type (hourly and daily). */
async function rollupTotals(service: TestService, sites: string[]): Promise<Row[]> {
  const knex = service.store.db.knex;
  const totals: Row[] = [];
  for (const table of ["usage_rollups", "usage_day_rollups"]) {
    const rows = (await knex(table)
      .whereIn("site_id", sites)
      .groupBy("site_id", "type")
      .orderBy(["site_id", "type"])
      .select("site_id", "type")
      .sum({ events: "events", seconds: "duration_seconds" })) as Row[];
    totals.push(...rows.map((row) => ({ table, ...row, events: Number(row.events) })));
  }
  return totals;
}

/** Every row of the visitor-data tables that belongs to `visitor`'s sessions on `siteId`. */
async function rowsOf(service: TestService, seeded: Seeded, v: number, s: number) {
  const knex = service.store.db.knex;
  const owned = seeded.owned[v]![s]!;
  return {
    sessions: await knex("widget_sessions").whereIn("id", owned.sessions).orderBy("id"),
    usage: await knex("usage_events").whereIn("session_id", owned.sessions).orderBy("id"),
    transcripts: await knex("transcripts").whereIn("id", owned.transcripts).orderBy("id"),
    leads: await knex("leads").whereIn("id", owned.leads).orderBy("id"),
    events: (await knex("service_events").orderBy("id")).filter((row: { data: string }) =>
      [...owned.sessions, ...owned.leads].some((id) => row.data.includes(id)),
    ),
  };
}

for (const target of databaseTargets) {
  describe(`visitor data rights on ${target.label}`, function () {
    this.timeout(90_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let seeded: Seeded;
    let auth: { Authorization: string };
    let ana: Visitor;
    let bo: Visitor;

    const ask = async (kind: "export" | "delete", siteId: string, visitor: Visitor) => {
      const res = await request(service.server)
        .post(`/v1/user-data/${kind}`)
        .set(auth)
        .send({ site_id: siteId, user_fingerprint: visitor.fingerprint });
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
      return res.body.data as { request_id: string; status: string; due_by: string };
    };
    const finished = async (id: string) => {
      for (let tries = 0; tries < 200; tries++) {
        const res = await request(service.server).get(`/v1/user-data/requests/${id}`).set(auth);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const answer = res.body.data as Row;
        if (answer.status === "done" || answer.status === "failed") {
          expect(answer.status).to.equal("done");
          return answer;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`request ${id} not done in 20 s`);
    };

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, { SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true" });
      seeded = await seedVisitors(service);
      [ana, bo] = seeded.visitors;
      auth = { Authorization: `Bearer ${await service.key(seeded.workspaceId)}` };
    });
    after(async () => {
      await seeded?.close();
      await service?.stop();
      await database?.drop();
    });

    it("the visitors' fingerprints differ, and leads and their events show them", async () => {
      expect(ana.fingerprint).to.match(/^[0-9a-f]{64}$/);
      expect(ana.fingerprint).to.not.equal(bo.fingerprint);
      const leads = await request(service.server)
        .get(`/v1/leads?site_id=${seeded.sites[0]}`)
        .set(auth)
        .expect(200);
      const mine = leads.body.data.find((l: Row) => l.id === seeded.owned[0]![0]!.leads[0]);
      expect(mine.user_fingerprint).to.equal(ana.fingerprint);
      const captured = seeded.receiver
        .payloads()
        .filter((p) => p.type === "lead.captured")
        .map((p) => (p.data as { lead: Row }).lead.user_fingerprint);
      expect(captured).to.have.members([
        ana.fingerprint,
        ana.fingerprint,
        bo.fingerprint,
        bo.fingerprint,
      ]);
    });

    it("lookup finds a visitor's fingerprint by email in any case, or by phone in any format", async () => {
      const byEmail = await request(service.server)
        .get("/v1/user-data/lookup")
        .query({ site_id: seeded.sites[0], email: ana.email.toUpperCase() })
        .set(auth)
        .expect(200);
      expect(byEmail.body.data).to.have.length(1);
      expect(byEmail.body.data[0]).to.include({ user_fingerprint: ana.fingerprint });
      expect(byEmail.body.data[0].lead_ids).to.deep.equal(seeded.owned[0]![0]!.leads);
      const byPhone = await request(service.server)
        .get("/v1/user-data/lookup")
        .query({ site_id: seeded.sites[1], phone: "020 7946 0958" })
        .set(auth)
        .expect(200);
      expect(byPhone.body.data.map((f: Row) => f.user_fingerprint)).to.deep.equal([bo.fingerprint]);
      const none = await request(service.server)
        .get("/v1/user-data/lookup")
        .query({ site_id: seeded.sites[0], email: "nobody@example.com" })
        .set(auth)
        .expect(200);
      expect(none.body.data).to.deep.equal([]);
    });

    describe("an export of one visitor on one site", () => {
      let view: Row;
      let document: Row;
      let downloadUrl: URL;

      before(async () => {
        const asked = await ask("export", seeded.sites[0], ana);
        expect(asked.status).to.equal("pending");
        view = await finished(asked.request_id);
        downloadUrl = new URL(view.download_url as string);
        const res = await request(service.server)
          .get(downloadUrl.pathname + downloadUrl.search)
          .expect(200);
        document = JSON.parse(res.text) as Row;
      });

      it("is due within 30 days and done, its link valid 7 days", () => {
        expect(Date.parse(view.due_by as string) - Date.parse(view.created_at as string)).to.equal(
          30 * 24 * 3600_000,
        );
        const valid =
          Date.parse(view.download_expires_at as string) - Date.parse(view.finished_at as string);
        expect(valid).to.equal(7 * 24 * 3600_000);
        expect(view.result).to.deep.include({ sessions: 2, transcripts: 2, leads: 1 });
      });

      it("holds exactly that visitor's sessions, transcripts, usage events and leads on that site", async () => {
        const owned = seeded.owned[0]![0]!;
        const rows = await rowsOf(service, seeded, 0, 0);
        expect(document).to.include({
          format: "sitevoice.user-data-export/1",
          site_id: seeded.sites[0],
          user_fingerprint: ana.fingerprint,
          request_id: view.request_id,
        });
        const generated = Date.parse(document.generated_at as string);
        expect(generated).to.be.within(Date.parse(view.created_at as string), Date.now());
        expect(Object.keys(document.schema as Row)).to.have.members([
          "sessions",
          "transcripts",
          "usage_events",
          "leads",
        ]);
        const ids = (section: string, field = "id") =>
          (document[section] as Row[]).map((item) => item[field]);
        expect(ids("sessions", "session_id")).to.have.members(owned.sessions);
        expect(ids("transcripts")).to.have.members(owned.transcripts);
        expect(ids("leads")).to.have.members(owned.leads);
        expect(ids("usage_events")).to.have.members(rows.usage.map((r: Row) => r.id));
        expect(ids("usage_events")).to.have.length(6); // start, function call and end of 2 sessions
        const lead = (document.leads as Row[])[0]!;
        expect(lead).to.include({ email: ana.email, phone: ana.phone, name: ana.name });
        const session = (document.sessions as Row[])[0]!;
        expect(session.duration_seconds).to.be.a("number");
        expect(session.page_url).to.contain(`https://${seeded.sites[0]}.example/pricing`);
        const text = JSON.stringify(document);
        for (const other of [
          bo.email,
          bo.fingerprint,
          bo.phone,
          ...seeded.owned[0]![1]!.sessions,
        ]) {
          expect(text).to.not.contain(other);
        }
      });

      it("is stored sealed, not in clear", async () => {
        const stored = (
          await service.store.db.knex("user_data_exports").where({
            request_id: view.request_id,
          })
        )[0] as { document: string };
        expect(stored.document).to.match(/^enc:v1:/);
        expect(stored.document).to.not.contain(ana.email);
      });

      it("the link works without a key and says it is a download", async () => {
        const res = await request(service.server).get(downloadUrl.pathname + downloadUrl.search);
        expect(res.status).to.equal(200);
        expect(res.headers["content-disposition"]).to.contain("attachment");
        expect(res.headers["cache-control"]).to.equal("no-store");
      });

      it("403 for a changed signature, a changed expiry or a link past its expiry", async () => {
        const params = downloadUrl.searchParams;
        const signature = params.get("signature")!;
        const flipped = (signature[0] === "a" ? "b" : "a") + signature.slice(1);
        const expires = Number(params.get("expires"));
        const tries = [
          `?expires=${expires}&signature=${flipped}`,
          `?expires=${expires + 60}&signature=${signature}`,
          `?expires=${expires}`,
          `?signature=${signature}`,
          `?expires=abc&signature=${signature}`,
        ];
        for (const query of tries) {
          const res = await request(service.server).get(downloadUrl.pathname + query);
          expect(res.status, query).to.equal(403);
          expect(res.body.error.code).to.equal("forbidden");
        }
        // A link the service itself signed, whose expiry has passed.
        const past = new DownloadLinks(service.ring).path(
          view.request_id as string,
          Date.now() - 1000,
        );
        const expired = await request(service.server).get(past);
        expect(expired.status).to.equal(403);
        // Another request's signature does not open this one.
        const other = new DownloadLinks(service.ring).path("udr_other", Date.now() + 60_000);
        const moved = new URL(other, "http://x").search;
        expect((await request(service.server).get(downloadUrl.pathname + moved)).status).to.equal(
          403,
        );
      });
    });

    describe("an erasure of one visitor", () => {
      let totalsBefore: Row[];
      let boBefore: Awaited<ReturnType<typeof rowsOf>>[];
      let anaOnB: Awaited<ReturnType<typeof rowsOf>>;
      let first: Row;

      before(async () => {
        totalsBefore = await rollupTotals(service, seeded.sites);
        boBefore = [await rowsOf(service, seeded, 1, 0), await rowsOf(service, seeded, 1, 1)];
        anaOnB = await rowsOf(service, seeded, 0, 1);
        const asked = await ask("delete", seeded.sites[0], ana);
        expect(Date.parse(asked.due_by) - Date.now()).to.be.within(71 * 3600_000, 72 * 3600_000);
        first = await finished(asked.request_id);
      });

      it("counts what it removed, and nothing of the data itself", () => {
        expect(first.result).to.deep.equal({
          transcripts_deleted: 2,
          leads_erased: 1,
          sessions_redacted: 2,
          usage_events_redacted: 2,
          service_events_redacted: 4,
          webhook_answers_redacted: 4,
          exports_deleted: 1,
        });
      });

      it("leaves the other visitor, and the same visitor on the other site, untouched", async () => {
        expect(await rowsOf(service, seeded, 1, 0)).to.deep.equal(boBefore[0]);
        expect(await rowsOf(service, seeded, 1, 1)).to.deep.equal(boBefore[1]);
        expect(await rowsOf(service, seeded, 0, 1)).to.deep.equal(anaOnB);
      });

      it("keeps the rollup totals", async () => {
        expect(await rollupTotals(service, seeded.sites)).to.deep.equal(totalsBefore);
      });

      it("keeps the leads (status and times) with their personal fields emptied", async () => {
        const lead = await request(service.server)
          .get(`/v1/leads?site_id=${seeded.sites[0]}`)
          .set(auth)
          .expect(200);
        const erased = lead.body.data.find((l: Row) => l.id === seeded.owned[0]![0]!.leads[0]);
        expect(erased).to.include({
          status: "contacted",
          name: null,
          email: null,
          phone: null,
          message: null,
          notes: null,
          user_fingerprint: null,
          page_url: `https://${seeded.sites[0]}.example/contact`,
        });
        expect(erased.erased_at).to.be.a("string");
      });

      it("the export made of that visitor is gone: its link answers 404, its request shows none", async () => {
        const exports = await request(service.server)
          .get("/v1/user-data/requests?type=export")
          .set(auth)
          .expect(200);
        const made = exports.body.data[0] as Row;
        expect(made.download_url).to.equal(null);
        const link = new DownloadLinks(service.ring).path(
          made.request_id as string,
          Date.now() + 60_000,
        );
        expect((await request(service.server).get(link)).status).to.equal(404);
      });

      describe("and on the other site too", () => {
        let second: Row;

        before(async () => {
          await ask("export", seeded.sites[1], bo).then((asked) => finished(asked.request_id));
          const asked = await ask("delete", seeded.sites[1], ana);
          await finished(asked.request_id);
          second = await finished((await ask("delete", seeded.sites[0], ana)).request_id);
        });

        it("no table and no export holds the visitor's email, phone or fingerprint", async () => {
          const needles = [ana.email, ana.phone, ana.phoneDigits, ana.fingerprint, ana.name];
          expect(await grepTables(service, needles)).to.deep.equal([]);
          const documents = await exportDocuments(service);
          expect(documents).to.have.length(1); // Bo's
          for (const needle of needles) expect(documents[0]).to.not.contain(needle);
          expect(documents[0]).to.contain(bo.email);
        });

        it("the other visitor's data is all still there", async () => {
          const found = await grepTables(service, [bo.email, bo.fingerprint]);
          for (const table of ["leads", "widget_sessions", "service_events", "webhook_attempts"]) {
            expect(
              found.some((hit) => hit.startsWith(`${table}:`)),
              table,
            ).to.equal(true);
          }
          expect(await rowsOf(service, seeded, 1, 0)).to.deep.equal(boBefore[0]);
        });

        it("a second erasure succeeds and removes nothing", () => {
          expect(second.status).to.equal("done");
          expect(
            Object.values(second.result as Row).every((n) => n === 0),
            JSON.stringify(second.result),
          ).to.equal(true);
        });

        it("the rollup totals are still those of before", async () => {
          expect(await rollupTotals(service, seeded.sites)).to.deep.equal(totalsBefore);
        });
      });
    });
  });
}
