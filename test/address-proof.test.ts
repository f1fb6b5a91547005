/**
 * An account counts once it proved its address, on SQLite, PostgreSQL and MariaDB, with a real
 * SMTP server: an open sign-up answers without a session and mails a link that confirms the
 * address (once, within 24 hours, under a fake clock); until then the account signs in neither
 * by password nor by a mailed link, and whoever confirms an address signed up twice first owns it.
 * A sign-up of a confirmed address is answered as a new one's, changes nothing and mails the
 * address's owner a notice (no link that signs in).
 * An invitation accepted for an address a stranger signed up takes the account over with the
 * invitee's password and ends the stranger's sessions; so does the first owner's setup link.
 * Migration 021 counts the users made before it as confirmed.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import pino from "pino";
import request from "supertest";
import {
  AccountService,
  issueSetupLink,
  SIGNUP_CONFIRMATION_TTL_MS,
} from "../core/accounts/account-service.ts";
import { SESSION_TTL_MS, SessionTokens } from "../core/accounts/session-tokens.ts";
import { composeStore, type StoreParts } from "../core/compose.ts";
import { logMailer } from "../core/mail/mailer.ts";
import { loadSettings } from "../core/settings.ts";
import { migrationSource } from "../core/store/migrations/index.ts";
import { argon2idHasher } from "../plugins/auth-local/index.ts";
import { mailedToken, mailsTo } from "./helpers/mailed-links.ts";
import { becomeOwner, cookieOf, dashboardPost } from "./helpers/session-cookie.ts";
import { smtpServer } from "./helpers/smtp-server.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const PASSWORD = "correct horse battery";
const STRANGER_PASSWORD = "a stranger's password";
const address = (who: string) => `${who}-${crypto.randomBytes(4).toString("hex")}@acme.example`;
const CONFIRM = "/dashboard/confirm";

for (const target of databaseTargets) {
  describe(`accounts prove their address, on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let smtp: Awaited<ReturnType<typeof smtpServer>>;
    let service: TestService;
    let owner: { email: string; cookie: string; workspaceId: string };

    const post = (path: string, body: object, cookie?: string) =>
      dashboardPost(service, path, body, cookie);
    const session = (cookie: string) =>
      request(service.server).get("/v1/auth/session").set("Cookie", cookie);
    /** The token of the `nth` invitation mailed to `email`. */
    const invite = async (email: string, nth = 1) => {
      const sent = await post("/v1/workspace/invitations", { email, role: "owner" }, owner.cookie);
      expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
      return mailedToken(smtp, email, "/dashboard/accept", nth);
    };
    /** A new account whose address is confirmed (signed up, the mailed link used), and its cookie. */
    const confirmedAccount = async () => {
      const email = address("known");
      await post("/v1/auth/signup", { email, password: PASSWORD }).expect(202);
      const confirmed = await post("/v1/auth/verify", {
        token: await mailedToken(smtp, email, CONFIRM),
      });
      expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200);
      return { email, cookie: cookieOf(confirmed) };
    };
    /** What a client sees of an answer, with the address it was given and what is random left out. */
    const answerOf = (res: request.Response, email: string) => {
      const { meta, ...body } = res.body as { meta: object };
      return {
        status: res.status,
        cookie: res.headers["set-cookie"],
        body: JSON.parse(JSON.stringify(body).replaceAll(email, "<address>")) as unknown,
        meta: Object.keys(meta).sort(),
      };
    };
    /** The id of the account of `email`, once the sign-ups answered so far made theirs. */
    const idOf = async (email: string) => {
      await service.accounts.settled();
      return (await service.store.accounts.userByEmail(email))!.id;
    };
    /** A session of the user's made as a sign-in makes one, and its cookie. */
    const sessionOf = async (userId: string) => {
      const id = `dss_${crypto.randomBytes(8).toString("hex")}`;
      const at = Date.now();
      await service.store.accounts.insertSession({
        id,
        user_id: userId,
        created_at: at,
        expires_at: at + SESSION_TTL_MS,
        revoked_at: null,
      });
      return `sv_session=${await new SessionTokens(service.ring).sign(id, userId, at, at + SESSION_TTL_MS)}`;
    };

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      smtp = await smtpServer();
      service = await startTestService(database.url, {
        SITEVOICE_SIGNUP: "open",
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        TRUSTED_PROXIES: "loopback",
      });
      owner = await becomeOwner(service, address("owner"));
    });
    after(async () => {
      await service?.stop();
      await smtp?.close();
      await database?.drop();
    });

    it("answers a sign-up with 202 and no session, and mails a link to confirm the address", async () => {
      const email = address("ana");
      const res = await post("/v1/auth/signup", {
        email,
        password: PASSWORD,
        workspace_name: "Acme",
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
      expect(res.headers["set-cookie"]).to.equal(undefined);
      expect(res.body.data).to.deep.include({ verification: "sent" });
      expect(res.body.data.user.email).to.equal(email);
      expect(await mailedToken(smtp, email, CONFIRM)).to.match(/^su_[A-Za-z0-9_-]{43}$/);
    });

    it("refuses a sign-up token it never mailed with 401 invalid_token", async () => {
      const res = await post("/v1/auth/verify", { token: `su_${"x".repeat(43)}` });
      expect([res.status, res.body.error.code]).to.deep.equal([401, "invalid_token"]);
    });

    it("refuses the password of an unconfirmed account with a wrong password's answer", async () => {
      const email = address("ana");
      await post("/v1/auth/signup", { email, password: PASSWORD }).expect(202);
      const unconfirmed = await post("/v1/auth/signin", { email, password: PASSWORD });
      const wrong = await post("/v1/auth/signin", {
        email: owner.email,
        password: "not it at all",
      });
      expect(unconfirmed.status).to.equal(401);
      expect(unconfirmed.headers["set-cookie"]).to.equal(undefined);
      expect(unconfirmed.body.error).to.deep.equal(wrong.body.error);
    });

    it("mails an unconfirmed address no sign-in link, answering as for any address", async () => {
      const email = address("ana");
      await post("/v1/auth/signup", { email, password: PASSWORD }).expect(202);
      await mailedToken(smtp, email, CONFIRM);
      const res = await post("/v1/auth/magic-link", { email });
      expect([res.status, res.body.data]).to.deep.equal([202, { sent: true }]);
      await service.accounts.settled();
      expect(smtp.received.filter((mail) => mail.to.includes(email))).to.have.length(1);
    });

    it("confirms the address by the mailed link, once: signed in, its workspace made, its password taken", async () => {
      const email = address("ana");
      await post("/v1/auth/signup", { email, password: PASSWORD, workspace_name: "Acme" });
      const token = await mailedToken(smtp, email, CONFIRM);
      const confirmed = await post("/v1/auth/verify", { token });
      expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200);
      expect(confirmed.body.data.workspaces).to.have.length(1);
      expect(confirmed.body.data.workspaces[0]).to.include({ name: "Acme", role: "owner" });
      await session(cookieOf(confirmed)).expect(200);
      await post("/v1/auth/signin", { email, password: PASSWORD }).expect(200);
      const again = await post("/v1/auth/verify", { token });
      expect([again.status, again.body.error.code]).to.deep.equal([401, "invalid_token"]);
    });

    it("answers a second sign-up of an unconfirmed address as the first, with a link of its own", async () => {
      const email = address("ana");
      const first = await post("/v1/auth/signup", { email, password: STRANGER_PASSWORD });
      const firstToken = await mailedToken(smtp, email, CONFIRM, 1);
      const second = await post("/v1/auth/signup", { email, password: PASSWORD });
      expect([second.status, second.body.data]).to.deep.equal([first.status, first.body.data]);
      const tokens = [firstToken, await mailedToken(smtp, email, CONFIRM, 2)];
      expect(tokens[0]).to.not.equal(tokens[1]);
    });

    it("gives an address signed up twice to whoever confirms first; the other link is refused", async () => {
      const email = address("ana");
      await post("/v1/auth/signup", { email, password: STRANGER_PASSWORD, workspace_name: "Evil" });
      // Each sign-up's link is made after its answer: the second waits for the first's mail.
      const strangers = await mailedToken(smtp, email, CONFIRM, 1);
      await post("/v1/auth/signup", { email, password: PASSWORD, workspace_name: "Mine" });
      const mine = await mailedToken(smtp, email, CONFIRM, 2);
      const confirmed = await post("/v1/auth/verify", { token: mine });
      expect(confirmed.body.data.workspaces.map((w: { name: string }) => w.name)).to.deep.equal([
        "Mine",
      ]);
      const late = await post("/v1/auth/verify", { token: strangers });
      expect([late.status, late.body.error.code]).to.deep.equal([401, "invalid_token"]);
      await post("/v1/auth/signin", { email, password: PASSWORD }).expect(200);
      await post("/v1/auth/signin", { email, password: STRANGER_PASSWORD }).expect(401);
    });

    it("answers a sign-up of a confirmed address exactly as one of a new address", async () => {
      const known = await confirmedAccount();
      const fresh = address("ana");
      const again = await post("/v1/auth/signup", { email: known.email, password: PASSWORD });
      const first = await post("/v1/auth/signup", { email: fresh, password: PASSWORD });
      expect(answerOf(again, known.email)).to.deep.equal(answerOf(first, fresh));
      expect(answerOf(first, fresh).body).to.deep.equal({
        success: true,
        data: { user: { email: "<address>" }, verification: "sent" },
      });
    });

    it("mails the owner of a confirmed address a notice linking to the sign-in page, with no token", async () => {
      const known = await confirmedAccount();
      await post("/v1/auth/signup", { email: known.email, password: STRANGER_PASSWORD }).expect(
        202,
      );
      // The first mail to the address was its own sign-up's confirmation.
      const [, notice] = await mailsTo(smtp, known.email, 2);
      expect(notice!.subject).to.equal("Someone tried to sign up for Sitevoice with your address");
      const base = service.boot.setupLink!.split("/dashboard/")[0]!;
      expect(notice!.text).to.contain("Nothing changed").and.contain(`${base}/dashboard/sign-in`);
      expect(notice!.text).to.contain("sign-in link");
      expect(notice!.text).to.not.match(/token/i);
    });

    it("leaves a confirmed account as it was after a sign-up of its address", async () => {
      const known = await confirmedAccount();
      const before = await service.store.accounts.userByEmail(known.email);
      await post("/v1/auth/signup", {
        email: known.email,
        password: STRANGER_PASSWORD,
        workspace_name: "Evil",
      }).expect(202);
      await mailsTo(smtp, known.email, 2);
      await service.accounts.settled();
      expect(await service.store.accounts.userByEmail(known.email)).to.deep.equal(before);
      await session(known.cookie).expect(200);
      await post("/v1/auth/signin", { email: known.email, password: PASSWORD }).expect(200);
      await post("/v1/auth/signin", { email: known.email, password: STRANGER_PASSWORD }).expect(
        401,
      );
      const tokens = await service.store.db
        .knex("auth_tokens")
        .where({ user_id: before!.id, kind: "signup" });
      expect(tokens).to.deep.equal([]);
    });

    it("takes an address a stranger signed up over for the invitee who accepts, with their password", async () => {
      const email = address("victim");
      await post("/v1/auth/signup", { email, password: STRANGER_PASSWORD, workspace_name: "Evil" });
      const accepted = await post("/v1/auth/accept", {
        token: await invite(email),
        password: PASSWORD,
      });
      expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
      expect(accepted.body.data.workspaces).to.deep.equal([
        { id: owner.workspaceId, name: "Default workspace", role: "owner" },
      ]);
      await post("/v1/auth/signin", { email, password: PASSWORD }).expect(200);
      await post("/v1/auth/signin", { email, password: STRANGER_PASSWORD }).expect(401);
    });

    it("ends the stranger's sessions and pending links when an invitation takes the address over", async () => {
      const email = address("victim");
      await post("/v1/auth/signup", { email, password: STRANGER_PASSWORD }).expect(202);
      const pending = await mailedToken(smtp, email, CONFIRM);
      const strangers = await sessionOf(await idOf(email));
      await post("/v1/auth/accept", { token: await invite(email, 1), password: PASSWORD }).expect(
        200,
      );
      await session(strangers).expect(401);
      const late = await post("/v1/auth/verify", { token: pending });
      expect([late.status, late.body.error.code]).to.deep.equal([401, "invalid_token"]);
      await post("/v1/auth/signin", { email, password: PASSWORD }).expect(200);
    });

    it("asks the invitee of an address a stranger signed up for a password, keeping the link", async () => {
      const email = address("victim");
      await post("/v1/auth/signup", { email, password: STRANGER_PASSWORD });
      const token = await invite(email);
      const without = await post("/v1/auth/accept", { token });
      expect([without.status, without.body.error.details.field]).to.deep.equal([400, "password"]);
      await post("/v1/auth/accept", { token, password: PASSWORD }).expect(200);
    });

    it("makes the setup link's email its owner, over an account a stranger signed up with it", async () => {
      const email = address("operator");
      await post("/v1/auth/signup", { email, password: STRANGER_PASSWORD }).expect(202);
      const strangers = await sessionOf(await idOf(email));
      const workspace = await service.workspace();
      const link = await issueSetupLink(service.store, workspace, service.url, Date.now());
      const setup = await post("/v1/auth/setup", {
        token: link.split("#token=")[1]!,
        email,
        password: PASSWORD,
      });
      expect(setup.status, JSON.stringify(setup.body)).to.equal(200);
      expect(setup.body.data.workspaces.map((w: { id: string }) => w.id)).to.deep.equal([
        workspace,
      ]);
      await session(strangers).expect(401);
      await post("/v1/auth/signin", { email, password: STRANGER_PASSWORD }).expect(401);
    });

    it("refuses a sign-up's link at 24 hours, unused, and takes it just before", async () => {
      const clock = { now: Date.now() };
      const mailed: string[] = [];
      const log = logMailer(pino({ level: "silent" }));
      const accounts = new AccountService({
        store: service.store,
        ring: service.ring,
        passwords: argon2idHasher(),
        mailer: {
          send: async (mail) => {
            mailed.push(/#token=(su_[A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
            await log.send(mail);
          },
          close: () => log.close(),
        },
        logger: pino({ level: "silent" }),
        publicBaseUrl: "https://voice.example",
        signup: "open",
        now: () => clock.now,
      });
      const late = address("late");
      const inTime = address("in-time");
      accounts.signup({ email: late, password: PASSWORD });
      await accounts.settled();
      accounts.signup({ email: inTime, password: PASSWORD });
      await accounts.settled();
      clock.now += SIGNUP_CONFIRMATION_TTL_MS - 1;
      expect((await accounts.verify(mailed[1]!)).user.email).to.equal(inTime);
      clock.now += 1;
      const refused = await accounts.verify(mailed[0]!).catch((error: unknown) => error);
      expect(refused).to.have.property("code", "invalid_token");
    });
  });
}

for (const target of databaseTargets) {
  describe(`migration 021, on ${target.label}`, () => {
    let database: TestDatabase | undefined;
    let parts: StoreParts | undefined;

    beforeEach(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
    });
    afterEach(async () => {
      await parts?.store.close();
      parts = undefined;
      await database?.drop();
    });

    it("counts the users made before it as having proved their address, and is undone by its down", async () => {
      const open = () =>
        composeStore(loadSettings({ DATABASE_URL: database!.url }), pino({ level: "silent" }));
      parts = await open();
      const knex = parts.store.db.knex;
      await knex.migrate.down({ migrationSource, name: "021-address-proof" });
      expect(await knex.schema.hasColumn("users", "verified_at")).to.equal(false);
      await knex("users").insert({
        id: "usr_before",
        email: "before@acme.example",
        password_hash: null,
        created_at: 1_700_000_000_000,
      });
      await parts.store.close();
      parts = await open();
      const user = await parts.store.accounts.user("usr_before");
      expect(Number(user!.verified_at)).to.equal(1_700_000_000_000);
    });
  });
}
