/**
 * The accounts' mails go out after the answer, so how long a relay takes tells nobody whether an
 * address has an account: with a real SMTP server that holds each mail 400 ms before accepting
 * it, a magic-link request, a sign-up (new, again for an address not confirmed yet, or of an
 * address an account confirmed, whose owner is mailed a notice) and an invitation are answered
 * before the relay accepted their mail (the order of the two events, not
 * their times), an unknown address is answered the same and mailed nothing, and the mail still
 * arrives afterwards, on SQLite, PostgreSQL and MariaDB. A
 * stop waits for the mails still to send; a mail that fails is logged, never the client's error.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import pino from "pino";
import { AccountService } from "../core/accounts/account-service.ts";
import { composeParts } from "../core/compose.ts";
import { loadSettings } from "../core/settings.ts";
import { argon2idHasher } from "../plugins/auth-local/index.ts";
import { mailsTo } from "./helpers/mailed-links.ts";
import { becomeOwner, dashboardPost } from "./helpers/session-cookie.ts";
import { smtpServer } from "./helpers/smtp-server.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const PASSWORD = "correct horse battery";
const address = (who: string) => `${who}-${crypto.randomBytes(4).toString("hex")}@acme.example`;

for (const target of databaseTargets) {
  describe(`accounts' mails after the answer, on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let smtp: Awaited<ReturnType<typeof smtpServer>>;
    let service: TestService | undefined;
    /** What happened, in order: `answered <path>` and `accepted <recipient>`. */
    const events: string[] = [];
    const owner = address("owner");
    let cookie: string;

    const post = (path: string, body: object, withCookie?: string) =>
      dashboardPost(service!, path, body, withCookie);
    const answered = async (path: string, body: object, withCookie?: string) => {
      const res = await post(path, body, withCookie);
      events.push(`answered ${path}`);
      return res;
    };

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      smtp = await smtpServer(undefined, {
        acceptAfterMs: 400,
        onAccepted: (mail) => events.push(`accepted ${mail.to.join(",")}`),
      });
      service = await startTestService(database.url, {
        SITEVOICE_SIGNUP: "open",
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        TRUSTED_PROXIES: "loopback",
      });
      // The first start's setup link makes an account whose address counts as proved.
      ({ cookie } = await becomeOwner(service, owner));
    });
    beforeEach(() => {
      events.length = 0;
    });
    after(async () => {
      await service?.stop();
      await smtp?.close();
      await database?.drop();
    });

    it("answers a magic-link request for an account before the relay accepted its mail", async () => {
      const res = await answered("/v1/auth/magic-link", { email: owner });
      expect(res.status).to.equal(202);
      await mailsTo(smtp, owner, 1);
      expect(events).to.deep.equal(["answered /v1/auth/magic-link", `accepted ${owner}`]);
    });

    it("answers a magic-link request for an unknown address the same, and mails it nothing", async () => {
      const known = await post("/v1/auth/magic-link", { email: owner });
      const nobody = address("nobody");
      const unknown = await answered("/v1/auth/magic-link", { email: nobody });
      expect([unknown.status, unknown.body.data]).to.deep.equal([known.status, known.body.data]);
      await service!.accounts.settled();
      expect(events.filter((event) => event.startsWith("accepted"))).to.deep.equal([
        `accepted ${owner}`,
      ]);
    });

    it("answers a sign-up before the relay accepted its confirmation mail", async () => {
      const ana = address("ana");
      const res = await answered("/v1/auth/signup", { email: ana, password: PASSWORD });
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
      await mailsTo(smtp, ana, 1);
      expect(events).to.deep.equal(["answered /v1/auth/signup", `accepted ${ana}`]);
    });

    it("answers a second sign-up of an unconfirmed address before the relay accepted its mail", async () => {
      const ana = address("ana");
      await post("/v1/auth/signup", { email: ana, password: PASSWORD }).expect(202);
      await mailsTo(smtp, ana, 1);
      events.length = 0;
      const res = await answered("/v1/auth/signup", { email: ana, password: PASSWORD });
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
      await mailsTo(smtp, ana, 2);
      expect(events).to.deep.equal(["answered /v1/auth/signup", `accepted ${ana}`]);
    });

    it("answers a sign-up of a confirmed address as a new one's, before the relay accepted the owner's notice", async () => {
      const fresh = address("ana");
      const known = await answered("/v1/auth/signup", { email: owner, password: PASSWORD });
      await service!.accounts.settled();
      expect(events).to.deep.equal(["answered /v1/auth/signup", `accepted ${owner}`]);
      const first = await post("/v1/auth/signup", { email: fresh, password: PASSWORD });
      expect([known.status, known.body.data]).to.deep.equal([
        first.status,
        { ...first.body.data, user: { email: owner } },
      ]);
    });

    it("answers an invitation before the relay accepted its mail, which arrives afterwards", async () => {
      const invitee = address("invitee");
      const res = await answered(
        "/v1/workspace/invitations",
        { email: invitee, role: "member" },
        cookie,
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      await mailsTo(smtp, invitee, 1);
      expect(events).to.deep.equal(["answered /v1/workspace/invitations", `accepted ${invitee}`]);
    });
  });

  describe(`a stop, on ${target.label}`, function () {
    this.timeout(30_000);
    let database: TestDatabase | undefined;
    let smtp: Awaited<ReturnType<typeof smtpServer>>;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      smtp = await smtpServer(undefined, { acceptAfterMs: 400 });
    });
    after(async () => {
      await smtp?.close();
      await database?.drop();
    });

    it("waits for the mail a request left to send, before the mailer and the store close", async () => {
      const parts = await composeParts(
        loadSettings({
          DATABASE_URL: database!.url,
          SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
          SITEVOICE_SITES_DIR: "",
          SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        }),
        pino({ level: "silent" }),
      );
      const owner = address("owner");
      await parts.store.accounts.insertUser({
        id: "usr_owner",
        email: owner,
        password_hash: null,
        created_at: Date.now(),
        verified_at: Date.now(),
      });
      // Closed in the same turn: the lookup, the token and the mail are all still to come.
      parts.accounts.magicLink(owner);
      await parts.close();
      expect(smtp.received.map((mail) => mail.to)).to.deep.equal([[owner]]);
    });
  });
}

describe("an account's mail that fails", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;
  const logged: { msg: string; workspace_id?: string }[] = [];

  before(async () => {
    database = (await createTestDatabase(databaseTargets[0]!))!;
    service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("is logged, and the invitation is answered all the same", async () => {
    const logger = pino(
      { level: "error" },
      { write: (line: string) => logged.push(JSON.parse(line) as (typeof logged)[number]) },
    );
    const accounts = new AccountService({
      store: service.store,
      ring: service.ring,
      passwords: argon2idHasher(),
      mailer: {
        send: () => Promise.reject(new Error("the relay refused it")),
        close: async () => {},
      },
      logger,
      publicBaseUrl: "https://voice.example",
      signup: "invite",
    });
    const workspace = await service.workspace();
    const inviter = { id: "usr_inviter", email: "inviter@acme.example" };
    await service.store.accounts.insertUser({
      id: inviter.id,
      email: inviter.email,
      password_hash: null,
      created_at: Date.now(),
      verified_at: Date.now(),
    });
    await service.store.accounts.addMember(workspace, inviter.id, "owner", Date.now());
    const sent = await accounts.invite(inviter, workspace, {
      email: address("cy"),
      role: "member",
    });
    expect(sent.role).to.equal("member");
    await accounts.settled();
    expect(logged.map((line) => [line.msg, line.workspace_id])).to.deep.equal([
      ["invitation not mailed", workspace],
    ]);
  });
});
