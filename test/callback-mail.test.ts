/**
 * A callback request mails the workspace's contact address, through the service's mailer to a
 * real SMTP server: who asked, how to reach them, why, and the conversation so far; never the
 * lead's update token. A workspace without a contact address gets no mail, and the log says so.
 * A lead that is not a callback mails nobody.
 */
import { Writable } from "node:stream";
import { expect } from "chai";
import { smtpServer } from "./helpers/smtp-server.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type Mailbox, type TestService } from "./helpers/test-service.ts";
import { inlineSiteWithSession, signedPost, type WidgetSession } from "./helpers/widget-session.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const CONTACT = "owner@business.example";
const CALLBACK = {
  source: "callback",
  name: "Ana Silva",
  phone: "+1 503 555 0100",
  reason: "Wants to talk about a refund",
  turns: [
    { role: "visitor", text: "Can I talk to a person?", at: "2026-11-21T10:04:05.123Z" },
    { role: "function", name: "search_site", at: "2026-11-21T10:04:06.000Z" },
    { role: "assistant", text: "I can ask someone to call you.", at: "2026-11-21T10:04:07.000Z" },
  ],
};

/** A mail's text part, its quoted-printable soft breaks and escapes undone. */
function textOf(raw: string): string {
  return raw
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

describe("the mail of a callback request", function () {
  this.timeout(60_000);
  let database: TestDatabase | undefined;
  let mailbox: Mailbox;
  let service: TestService;
  let session: WidgetSession;
  const logs: { msg: string; lead_id?: string }[] = [];

  async function post(body: object) {
    const res = await signedPost(service, session, "/leads", body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    await service.leads.settled();
    return res.body.data.lead_id as string;
  }

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    mailbox = await smtpServer();
    const lines = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split("\n"))
          if (line !== "") logs.push(JSON.parse(line));
        done();
      },
    });
    service = await startTestService(
      database.url,
      {
        SITEVOICE_JOBS: "off",
        SITEVOICE_PLUGINS: "sitevoice-adapter-inline",
        SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`,
        LOG_LEVEL: "info",
      },
      { logs: lines },
    );
  });
  beforeEach(async () => {
    session = await inlineSiteWithSession(service, {
      prefix: "callback-mail",
      domain: "callback-mail.example",
    });
    await service.store.workspaces.setContactEmail(session.workspaceId, CONTACT);
    mailbox.received.length = 0;
    logs.length = 0;
  });
  after(async () => {
    await service?.stop();
    await mailbox?.close();
    await database?.drop();
  });

  it("goes to the workspace's contact address", async () => {
    await post(CALLBACK);
    expect(mailbox.received.map((m) => m.to)).to.deep.equal([[CONTACT]]);
  });

  it("names the site in its subject, and nothing the visitor said (a mailer without SMTP logs it)", async () => {
    await post(CALLBACK);
    const subject = /^Subject: (.*)$/m.exec(mailbox.received[0]!.raw)?.[1];
    expect(subject).to.equal(`Callback requested on ${session.siteId}`);
  });

  it("says how to reach them, why, and the conversation so far", async () => {
    const leadId = await post(CALLBACK);
    const text = textOf(mailbox.received[0]!.raw);
    for (const expected of [
      "Phone: +1 503 555 0100",
      "Reason: Wants to talk about a refund",
      "Visitor: Can I talk to a person?",
      "Looked up: search_site",
      "Assistant: I can ask someone to call you.",
      leadId,
    ]) {
      expect(text).to.contain(expected);
    }
  });

  it("a line break in the name adds no header", async () => {
    await post({ ...CALLBACK, name: "Ana\r\nBcc: someone@elsewhere.example" });
    expect(mailbox.received.map((m) => m.to)).to.deep.equal([[CONTACT]]);
    const headers = mailbox.received[0]!.raw.split("\r\n\r\n")[0];
    expect(headers).to.not.match(/^Bcc:/m);
  });

  it("holds no update token", async () => {
    await post(CALLBACK);
    expect(mailbox.received[0]?.raw).to.not.match(/lt_[A-Za-z0-9_-]{32}/);
  });

  it("is sent once for a request sent twice (the same signed body is the same lead)", async () => {
    const first = await post(CALLBACK);
    expect(await post(CALLBACK)).to.equal(first);
    expect(mailbox.received).to.have.length(1);
  });

  it("is not sent for a lead that is not a callback", async () => {
    await post({ email: "ana@example.com" });
    expect(mailbox.received).to.deep.equal([]);
  });

  it("is not sent when the workspace has no contact address, and the log says so", async () => {
    await service.store.workspaces.setContactEmail(session.workspaceId, null);
    const leadId = await post(CALLBACK);
    expect(mailbox.received).to.deep.equal([]);
    expect(logs.filter((line) => line.lead_id === leadId).map((line) => line.msg)).to.deep.equal([
      "no contact address to mail a callback request to",
    ]);
  });

  it("the log line holds none of the visitor's words", async () => {
    await service.store.workspaces.setContactEmail(session.workspaceId, null);
    await post(CALLBACK);
    const logged = JSON.stringify(logs);
    for (const said of ["Ana Silva", "503 555", "refund", "person"]) {
      expect(logged).to.not.contain(said);
    }
  });
});
