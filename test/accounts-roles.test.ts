/**
 * The first owner and the workspace's people: the setup token made at the first start makes its
 * user the default workspace's owner, once, within 24 hours (a fake clock), and is not made again
 * at a later start; the first API key keeps working. An owner invites by mail (a real SMTP
 * server); the link makes the invited email a member, once, within 7 days; a member cannot
 * invite; an existing account is added without a password.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import { simpleParser } from "mailparser";
import pino from "pino";
import request from "supertest";
import {
  AccountService,
  INVITATION_TTL_MS,
  issueSetupLink,
  SETUP_LINK_TTL_MS,
} from "../core/accounts/account-service.ts";
import { logMailer } from "../core/mail/mailer.ts";
import { argon2idHasher } from "../plugins/auth-local/index.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { smtpServer } from "./helpers/smtp-server.ts";
import { cookieOf } from "./helpers/session-cookie.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const PASSWORD = "correct horse battery";
const SAME = { "Sec-Fetch-Site": "same-origin" };
const tokenOf = (link: string) => link.slice(link.indexOf("#token=") + 7);

describe("the first owner and invitations", function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  let service: TestService;
  let owner: string;

  // One master key across the restart: the cookie's JWT is signed under a key derived from it.
  const masterKey = crypto.randomBytes(32).toString("base64");
  const env = () => ({
    SITEVOICE_MASTER_KEY: masterKey,
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    TRUSTED_PROXIES: "loopback",
  });
  const post = (path: string, body: unknown, cookie?: string) => {
    const call = request(service.server)
      .post(path)
      .set("X-Forwarded-For", `198.51.100.${crypto.randomInt(1, 255)}`)
      .set(SAME);
    if (cookie !== undefined) call.set("Cookie", cookie);
    return call.send(body as object);
  };
  /** The invitation in the newest mail to `to`, once the service has sent what it answered. */
  const mailedToken = async (to: string) => {
    await service.accounts.settled();
    const mail = smtp.received.filter((m) => m.to.includes(to)).at(-1);
    expect(mail, `a mail to ${to}`).to.not.equal(undefined);
    const text = (await simpleParser(mail!.raw)).text ?? "";
    return /\/dashboard\/accept#token=(inv_[A-Za-z0-9_-]+)/.exec(text)![1]!;
  };

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    smtp = await smtpServer();
    service = await startTestService(database.url, env());
  });
  after(async () => {
    await service?.stop();
    await smtp?.close();
    await database?.drop();
  });

  describe("the setup token of the first start", () => {
    it("makes its user the owner of the default workspace, once", async () => {
      const link = service.boot.setupLink!;
      expect(link).to.match(/\/dashboard\/setup#token=st_[A-Za-z0-9_-]{43}$/);
      const bad = await post("/v1/auth/setup", {
        token: `st_${"x".repeat(43)}`,
        email: "owner@acme.example",
        password: PASSWORD,
      });
      expect(bad.status).to.equal(401);
      expect(bad.body.error.code).to.equal("invalid_token");
      const res = await post("/v1/auth/setup", {
        token: tokenOf(link),
        email: "Owner@Acme.example",
        password: PASSWORD,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data.workspaces).to.deep.equal([
        { id: service.boot.workspaceId, name: "Default workspace", role: "owner" },
      ]);
      owner = cookieOf(res);
      const again = await post("/v1/auth/setup", {
        token: tokenOf(link),
        email: "second@acme.example",
        password: PASSWORD,
      });
      expect(again.status).to.equal(401);
      expect(await service.store.accounts.userByEmail("second@acme.example")).to.equal(undefined);
    });

    it("leaves the printed API key working", async () => {
      await request(service.server)
        .get("/v1/sites")
        .set("Authorization", `Bearer ${service.boot.firstKey!}`)
        .expect(200);
    });

    it("is made at the first start only", async () => {
      await service.stop();
      service = await startTestService(database.url, env());
      expect(service.boot.setupLink).to.equal(undefined);
      expect(service.boot.firstKey).to.equal(undefined);
      // The owner's session outlived the restart.
      await request(service.server).get("/v1/auth/session").set("Cookie", owner).expect(200);
    });
  });

  describe("an invitation", () => {
    let member: string;

    it("is mailed by an owner; its link makes the email a member with a password, once", async () => {
      const sent = await post(
        "/v1/workspace/invitations",
        { email: "Bo@Acme.example", role: "member" },
        owner,
      );
      expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
      expect(sent.body.data).to.include({ email: "bo@acme.example", role: "member" });
      const token = await mailedToken("bo@acme.example");
      // A new account needs a password: refused, and the link still works.
      const without = await post("/v1/auth/accept", { token });
      expect(without.status).to.equal(400);
      expect(without.body.error.details.field).to.equal("password");
      const accepted = await post("/v1/auth/accept", { token, password: PASSWORD });
      expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
      expect(accepted.body.data.workspaces).to.deep.equal([
        { id: service.boot.workspaceId, name: "Default workspace", role: "member" },
      ]);
      member = cookieOf(accepted);
      expect((await post("/v1/auth/accept", { token, password: PASSWORD })).status).to.equal(401);
      const members = await request(service.server)
        .get("/v1/workspace/members")
        .set("Cookie", member)
        .expect(200);
      expect(
        members.body.data.map((m: { email: string; role: string }) => [m.email, m.role]),
      ).to.deep.equal([
        ["owner@acme.example", "owner"],
        ["bo@acme.example", "member"],
      ]);
    });

    it("is refused to a member who is not an owner, mailing nothing", async () => {
      const before = smtp.received.length;
      const res = await post(
        "/v1/workspace/invitations",
        { email: "cy@acme.example", role: "owner" },
        member,
      );
      await service.accounts.settled();
      expect(res.status).to.equal(403);
      expect(res.body.error.details.reason).to.equal("not_owner");
      expect(smtp.received.length).to.equal(before);
    });

    it("adds an existing account without a password, and keeps an owner an owner", async () => {
      const other = await service.workspace();
      await service.store.accounts.addMember(
        other,
        (await service.store.accounts.userByEmail("owner@acme.example"))!.id,
        "owner",
        Date.now(),
      );
      const sent = await post(
        `/v1/workspace/invitations?workspace_id=${other}`,
        { email: "bo@acme.example", role: "owner" },
        owner,
      );
      expect(sent.status).to.equal(201);
      const accepted = await post("/v1/auth/accept", {
        token: await mailedToken("bo@acme.example"),
      });
      expect(accepted.status).to.equal(200);
      expect(
        accepted.body.data.workspaces.map((w: { id: string; role: string }) => [w.id, w.role]),
      ).to.deep.equal([
        [service.boot.workspaceId, "member"],
        [other, "owner"],
      ]);
    });

    for (const [what, body] of [
      ["an unknown role", { email: "cy@acme.example", role: "admin" }],
      ["no email", { role: "member" }],
      ["an email that is not one", { email: "cy", role: "member" }],
    ] as const) {
      it(`400 for ${what}`, async () => {
        const res = await post("/v1/workspace/invitations", body, owner);
        expect(res.status).to.equal(400);
      });
    }

    it("401 without a session; 404 for a workspace the user is not in", async () => {
      const none = await request(service.server)
        .post("/v1/workspace/invitations")
        .send({ email: "cy@acme.example", role: "member" });
      expect(none.status).to.equal(401);
      const theirs = await service.workspace();
      const res = await post(
        `/v1/workspace/invitations?workspace_id=${theirs}`,
        { email: "cy@acme.example", role: "member" },
        owner,
      );
      expect(res.status).to.equal(404);
    });
  });
});

describe("setup tokens and invitations expire, under a fake clock", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;
  let accounts: AccountService;
  const clock = { now: Date.parse("2026-11-26T12:00:00.000Z") };
  const sent: string[] = [];

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
    const logger = pino({ level: "silent" });
    const log = logMailer(logger);
    accounts = new AccountService({
      store: service.store,
      ring: service.ring,
      passwords: argon2idHasher(),
      mailer: {
        async send(mail) {
          sent.push(mail.text);
          await log.send(mail);
        },
        close: () => log.close(),
      },
      logger,
      publicBaseUrl: "https://voice.example",
      signup: "open",
      now: () => clock.now,
    });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("a setup token works until 24 hours, not at 24 hours", async () => {
    const workspace = await service.workspace();
    const late = tokenOf(
      await issueSetupLink(service.store, workspace, "https://v.example", clock.now),
    );
    const inTime = tokenOf(
      await issueSetupLink(service.store, workspace, "https://v.example", clock.now),
    );
    clock.now += SETUP_LINK_TTL_MS - 1;
    const ok = await accounts.setup({ token: inTime, email: "a@acme.example", password: PASSWORD });
    expect(ok.workspaces[0]).to.include({ id: workspace, role: "owner" });
    clock.now += 1;
    const refused = await accounts
      .setup({ token: late, email: "b@acme.example", password: PASSWORD })
      .catch((error: unknown) => error);
    expect(refused).to.have.property("code", "invalid_token");
  });

  it("an invitation works until 7 days, not at 7 days", async () => {
    const workspace = await service.workspace();
    const link = await issueSetupLink(service.store, workspace, "https://v.example", clock.now);
    const boss = await accounts.setup({
      token: tokenOf(link),
      email: "boss@acme.example",
      password: PASSWORD,
    });
    const invite = async (email: string) => {
      await accounts.invite(boss.user, workspace, { email, role: "member" });
      await accounts.settled();
      return /#token=(inv_[A-Za-z0-9_-]+)/.exec(sent.at(-1)!)![1]!;
    };
    const inTime = await invite("x@acme.example");
    const late = await invite("y@acme.example");
    clock.now += INVITATION_TTL_MS - 1;
    expect((await accounts.accept({ token: inTime, password: PASSWORD })).user.email).to.equal(
      "x@acme.example",
    );
    clock.now += 1;
    const refused = await accounts
      .accept({ token: late, password: PASSWORD })
      .catch((error: unknown) => error);
    expect(refused).to.have.property("code", "invalid_token");
  });
});
