/**
 * Deadline alerting under a fake clock, on the real store and a real SMTP server: a request whose
 * every attempt fails (a stored row it cannot read) is retried on its schedule and raises the
 * alert (an error in the log, a mail to the workspace's owner) well before its deadline, after
 * five failed attempts or a quarter of its time, whichever comes first; once only; a request still
 * open at its deadline is marked failed and the owner told; and a request whose cause is fixed
 * completes on its next attempt. An export's document is deleted 7 days after it was made.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import { simpleParser } from "mailparser";
import pino from "pino";
import { operatorPrincipal, type Principal } from "../core/auth/principal.ts";
import { smtpMailer, type Mailer } from "../core/mail/mailer.ts";
import { newId } from "../core/store/ids.ts";
import { DEADLINE_MS, UserDataService } from "../core/user-data/user-data-service.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { smtpServer } from "./helpers/smtp-server.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const OWNER = "owner@business.example";

describe("user-data deadlines under a fake clock", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  let mailer: Mailer;
  const clock = { now: Date.parse("2026-11-02T09:00:00.000Z") };
  const logs: { level: number; msg: string; request_id?: string }[] = [];
  let userData: UserDataService;
  let principal: Principal;
  let siteId: string;

  /** A visitor with a session on the site, and a fingerprint. */
  const visitor = async () => {
    const { session } = await service.sessions.create(
      { site_id: siteId, workspace_id: principal.workspaceId },
      { ip: `203.0.113.${crypto.randomInt(1, 255)}`, userAgent: crypto.randomUUID() },
    );
    return session;
  };
  const mailsAbout = (id: string) => smtp.received.filter((mail) => mail.raw.includes(id));
  const errorsAbout = (id: string) =>
    logs.filter((line) => line.level === 50 && line.request_id === id);
  const status = async (id: string) => (await userData.get(principal, id)).status;

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
    smtp = await smtpServer();
    const logger = pino(
      { level: "info" },
      { write: (line: string) => void logs.push(JSON.parse(line)) },
    );
    mailer = smtpMailer(
      `smtp://127.0.0.1:${smtp.port}`,
      "Sitevoice <alerts@sitevoice.test>",
      logger,
    );
    const ws = await service.workspace();
    await service.store.workspaces.setContactEmail(ws, OWNER);
    principal = operatorPrincipal(ws, "test");
    siteId = `deadlines-${crypto.randomBytes(3).toString("hex")}`;
    await service.sites.create(principal, {
      site_id: siteId,
      business_name: "Deadlines",
      business_description: "",
      domain: `${siteId}.example`,
    });
    userData = new UserDataService({
      store: service.store,
      ring: service.ring,
      sites: service.sites,
      mailer,
      logger,
      publicBaseUrl: "https://voice.example",
      now: () => clock.now,
    });
  });
  after(async () => {
    await mailer?.close();
    await smtp?.close();
    await service?.stop();
    await database?.drop();
  });

  describe("an export stuck behind failing attempts", () => {
    let id: string;
    let created: number;

    before(async () => {
      const session = await visitor();
      // A transcript the export cannot read: every attempt fails on it.
      await service.store.db.knex("transcripts").insert({
        id: newId("trn"),
        site_id: siteId,
        session_id: session.id,
        user_fingerprint: session.user_fingerprint,
        turns: "{not json",
        page_url: null,
        created_at: clock.now,
        expires_at: clock.now + 30 * DAY,
      });
      created = clock.now;
      const made = await userData.request(principal, "export", {
        site_id: siteId,
        user_fingerprint: session.user_fingerprint,
      });
      id = made.request_id;
      await userData.run(id);
    });

    it("stays pending after a failed attempt, tried again a minute later, with no alert yet", async () => {
      expect(await status(id)).to.equal("pending");
      clock.now = created + 30_000;
      expect((await userData.sweep()).ran).to.equal(0);
      clock.now = created + MINUTE;
      expect((await userData.sweep()).ran).to.equal(1);
      expect((await userData.get(principal, id)).attempts).to.equal(2);
      expect(mailsAbout(id)).to.deep.equal([]);
      expect(errorsAbout(id)).to.deep.equal([]);
    });

    it("alerts after its fifth failed attempt (1, 5, 15 and 60 minutes apart), long before its deadline", async () => {
      for (const at of [6 * MINUTE, 21 * MINUTE]) {
        clock.now = created + at;
        await userData.sweep();
        expect(mailsAbout(id), `at ${at / MINUTE} min`).to.deep.equal([]);
      }
      clock.now = created + 81 * MINUTE;
      const swept = await userData.sweep();
      expect(swept).to.include({ ran: 1, alerted: 1 });
      expect((await userData.get(principal, id)).attempts).to.equal(5);
      const [mail] = mailsAbout(id);
      expect(mail?.to).to.deep.equal([OWNER]);
      const parsed = await simpleParser(mail!.raw);
      expect(parsed.subject).to.equal(
        `Sitevoice: data export ${id} is not done yet (due by ${new Date(created + DEADLINE_MS.export).toISOString()})`,
      );
      expect(parsed.text).to.contain(`Attempts so far: 5`);
      expect(errorsAbout(id)).to.have.length(1);
      expect(errorsAbout(id)[0]!.msg).to.contain("at risk of missing its deadline");
      expect(created + DEADLINE_MS.export - clock.now).to.be.greaterThan(29 * DAY);
    });

    it("alerts once, however many attempts fail after (2, 4 and 6 hours apart)", async () => {
      for (const at of [201 * MINUTE, 441 * MINUTE, 801 * MINUTE]) {
        clock.now = created + at;
        expect((await userData.sweep()).ran).to.equal(1);
      }
      expect((await userData.get(principal, id)).attempts).to.equal(8);
      expect(mailsAbout(id)).to.have.length(1);
    });

    it("is marked failed at its deadline, and the owner told it was missed", async () => {
      clock.now = created + DEADLINE_MS.export;
      const swept = await userData.sweep();
      expect(swept.failed).to.equal(1);
      const view = await userData.get(principal, id);
      expect(view.status).to.equal("failed");
      expect(view.finished_at).to.equal(new Date(clock.now).toISOString());
      const mails = mailsAbout(id);
      expect(mails).to.have.length(2);
      expect((await simpleParser(mails[1]!.raw)).subject).to.equal(
        `Sitevoice: data export ${id} missed its deadline`,
      );
      // Failed, it no longer holds the visitor's fingerprint.
      const row = await service.store.userData.get(id);
      expect(row).to.include({ subject: null, subject_hash: null, open_key: null });
    });
  });

  describe("an export's document", () => {
    let id: string;
    let done: number;

    before(async () => {
      clock.now = Date.parse("2026-12-01T09:00:00.000Z");
      const session = await visitor();
      id = (
        await userData.request(principal, "export", {
          site_id: siteId,
          user_fingerprint: session.user_fingerprint,
        })
      ).request_id;
      await userData.run(id);
      done = clock.now;
    });

    it("is kept, behind its link, until 7 days after it was made", async () => {
      const view = await userData.get(principal, id);
      expect(view.status).to.equal("done");
      expect(view.download_expires_at).to.equal(new Date(done + 7 * DAY).toISOString());
      clock.now = done + 7 * DAY - 1;
      expect((await userData.sweep()).expired).to.equal(0);
      expect((await userData.get(principal, id)).download_url).to.be.a("string");
    });

    it("is deleted by the sweep at 7 days, and the request forgets the fingerprint", async () => {
      clock.now = done + 7 * DAY;
      expect((await userData.sweep()).expired).to.equal(1);
      expect(await service.store.userData.getExport(id)).to.equal(undefined);
      const view = await userData.get(principal, id);
      expect(view).to.include({ status: "done", download_url: null, download_expires_at: null });
      expect(view.result).to.include({ sessions: 1 });
      expect(await service.store.userData.get(id)).to.include({
        subject: null,
        subject_hash: null,
      });
    });
  });

  describe("an erasure not run for most of a day", () => {
    let id: string;
    let created: number;
    let broken: string;

    before(async () => {
      clock.now = Date.parse("2026-12-10T09:00:00.000Z");
      const session = await visitor();
      // A stored event about the visitor the erasure cannot read.
      broken = newId("evt");
      await service.store.db.knex("service_events").insert({
        id: broken,
        type: "conversation.ended",
        workspace_id: principal.workspaceId,
        site_id: siteId,
        data: `{"session_id":"${session.id}","user_fingerprint":"${session.user_fingerprint}"`,
        created_at: clock.now,
      });
      created = clock.now;
      id = (
        await userData.request(principal, "delete", {
          site_id: siteId,
          user_fingerprint: session.user_fingerprint,
        })
      ).request_id;
    });

    it("is not alerted on before a quarter of its 72 hours, with one failed attempt", async () => {
      clock.now = created + 18 * HOUR - MINUTE;
      expect(await userData.sweep()).to.include({ ran: 1, alerted: 0 });
      expect(mailsAbout(id)).to.deep.equal([]);
    });

    it("is alerted on at 18 hours, 54 hours before its deadline", async () => {
      clock.now = created + 18 * HOUR;
      expect(await userData.sweep()).to.include({ alerted: 1 });
      expect((await userData.get(principal, id)).attempts).to.equal(2);
      const [mail] = mailsAbout(id);
      expect((await simpleParser(mail!.raw)).subject).to.contain(
        `data erasure ${id} is not done yet`,
      );
      expect(errorsAbout(id)).to.have.length(1);
      expect(created + DEADLINE_MS.delete - clock.now).to.equal(54 * HOUR);
    });

    it("completes on its next attempt once the cause is gone", async () => {
      await service.store.db.knex("service_events").where({ id: broken }).delete();
      clock.now = created + 18 * HOUR + 5 * MINUTE;
      await userData.sweep();
      const view = await userData.get(principal, id);
      expect(view.status).to.equal("done");
      expect(view.result).to.include({ sessions_redacted: 1 });
      expect(mailsAbout(id)).to.have.length(1);
    });
  });
});
