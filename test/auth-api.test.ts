/**
 * Dashboard accounts over HTTP: sign-up (confirmed by the mailed link), sign-in (a wrong password
 * and an unknown email are the same 401), the session cookie and sign-out revoking it at once,
 * the per-IP limits with a spoofed X-Forwarded-For not trusted by default, magic links (mailed to
 * a real SMTP server, single use, expiring after 15 minutes under a fake clock) and the CSRF rule
 * for cookie-authenticated changes. test/address-proof.test.ts follows an address's proof.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import { simpleParser } from "mailparser";
import pino from "pino";
import request from "supertest";
import { AccountService, MAGIC_LINK_TTL_MS } from "../core/accounts/account-service.ts";
import { smtpMailer, type Mailer } from "../core/mail/mailer.ts";
import { argon2idHasher } from "../plugins/auth-local/index.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { smtpServer } from "./helpers/smtp-server.ts";
import { mailedToken } from "./helpers/mailed-links.ts";
import { cookieOf } from "./helpers/session-cookie.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const PASSWORD = "correct horse battery";
const email = () => `user-${crypto.randomBytes(4).toString("hex")}@acme.example`;
/** A client IP of its own per test, through a trusted proxy. */
/**
 * A client address no other request of the suite used: the per-IP limits count each, so a random
 * one that came up twice made a limit test see another test's requests (a flake seen in CI).
 */
let addresses = 0;
const ip = () => {
  addresses += 1;
  return `198.18.${addresses >> 8}.${addresses & 255}`;
};

describe("dashboard accounts over HTTP", function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let service: TestService;

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, {
      SITEVOICE_SIGNUP: "open",
      TRUSTED_PROXIES: "loopback",
    });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  const post = (path: string, body: unknown, from = ip()) =>
    request(service.server)
      .post(path)
      .set("X-Forwarded-For", from)
      .send(body as object);
  /** Signs `address` up and confirms it by the mailed link: the confirmation's answer. */
  const confirmedSignUp = async (address: string, body: object = {}) => {
    const res = await post("/v1/auth/signup", { email: address, password: PASSWORD, ...body });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    const token = await mailedToken(service.mailbox!, address, "/dashboard/confirm");
    const confirmed = await post("/v1/auth/verify", { token });
    expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200);
    return confirmed;
  };

  describe("sign-up and sign-in", () => {
    let address: string;
    let cookie: string;

    before(async () => {
      address = email();
      const res = await confirmedSignUp(address.toUpperCase(), { workspace_name: "Acme" });
      cookie = cookieOf(res);
    });

    it("signs up a user who owns a new workspace once confirmed, and sets an HttpOnly, SameSite=Lax cookie", async () => {
      const res = await request(service.server).get("/v1/auth/session").set("Cookie", cookie);
      expect(res.status).to.equal(200);
      expect(res.body.data.user.email).to.equal(address);
      expect(res.body.data.workspaces).to.have.length(1);
      expect(res.body.data.workspaces[0]).to.include({ name: "Acme", role: "owner" });
      const again = await post("/v1/auth/signin", { email: address, password: PASSWORD });
      const set = String(again.headers["set-cookie"]);
      expect(set).to.contain("HttpOnly").and.contain("SameSite=Lax").and.contain("Path=/");
    });

    it("stores the password as an Argon2id hash only", async () => {
      const row = await service.store.accounts.userByEmail(address);
      expect(row!.password_hash).to.match(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(JSON.stringify(row)).to.not.contain(PASSWORD);
    });

    it("signs in with the password, in any case of the email", async () => {
      const res = await post("/v1/auth/signin", {
        email: address.toUpperCase(),
        password: PASSWORD,
      });
      expect(res.status).to.equal(200);
      expect(res.body.data.user.email).to.equal(address);
      expect(cookieOf(res)).to.match(/^sv_session=ey/);
    });

    it("answers a wrong password and an unknown email with the same 401", async () => {
      const wrong = await post("/v1/auth/signin", { email: address, password: "not the password" });
      const unknown = await post("/v1/auth/signin", { email: email(), password: PASSWORD });
      for (const res of [wrong, unknown]) {
        expect(res.status).to.equal(401);
        expect(res.headers["set-cookie"]).to.equal(undefined);
      }
      expect(wrong.body.error).to.deep.equal(unknown.body.error);
    });

    it("answers a sign-up of an email already signed up, in any case, as a new one's: 202", async () => {
      const res = await post("/v1/auth/signup", {
        email: address.toUpperCase(),
        password: PASSWORD,
      });
      expect([res.status, res.body.data]).to.deep.equal([
        202,
        { user: { email: address }, verification: "sent" },
      ]);
    });

    for (const [what, body] of [
      ["a password under 10 characters", { email: "a@b.example", password: "short" }],
      ["an email that is not one", { email: "nobody", password: PASSWORD }],
      ["an unknown field", { email: "a@b.example", password: PASSWORD, role: "owner" }],
      ["no body", undefined],
    ] as const) {
      it(`400 invalid_request for ${what}, creating nothing`, async () => {
        const res = await post("/v1/auth/signup", body);
        expect(res.status).to.equal(400);
        expect(res.body.error.code).to.equal("invalid_request");
      });
    }

    it("401 for the session without a cookie, or with one that is not ours", async () => {
      expect((await request(service.server).get("/v1/auth/session")).status).to.equal(401);
      // The JWT's signature with its first character changed (its last ones may carry only
      // padding bits: a change there can decode to the very same signature).
      const value = cookie.split("=")[1]!;
      const at = value.lastIndexOf(".") + 1;
      const forgedValue = `${value.slice(0, at)}${value[at] === "A" ? "B" : "A"}${value.slice(at + 1)}`;
      const forged = await request(service.server)
        .get("/v1/auth/session")
        .set("Cookie", `sv_session=${forgedValue}`);
      expect(forged.status).to.equal(401);
    });
  });

  describe("sign-out", () => {
    it("ends the session at once: the same cookie, anywhere, is 401 afterwards", async () => {
      const address = email();
      const first = cookieOf(await confirmedSignUp(address));
      const second = cookieOf(
        await post("/v1/auth/signin", { email: address, password: PASSWORD }),
      );
      const out = await request(service.server)
        .post("/v1/auth/signout")
        .set("Cookie", first)
        .set("Sec-Fetch-Site", "same-origin")
        .set("Content-Type", "application/json")
        .send("{}");
      expect(out.status).to.equal(200);
      expect(String(out.headers["set-cookie"])).to.match(/^sv_session=;.*Expires=Thu, 01 Jan 1970/);
      expect(
        (await request(service.server).get("/v1/auth/session").set("Cookie", first)).status,
      ).to.equal(401);
      // Another browser's session of the same user stands.
      expect(
        (await request(service.server).get("/v1/auth/session").set("Cookie", second)).status,
      ).to.equal(200);
    });
  });

  describe("CSRF: a change on the cookie's strength", () => {
    let cookie: string;

    before(async () => {
      cookie = cookieOf(await confirmedSignUp(email()));
    });

    const signout = (headers: Record<string, string>, body = "{}") =>
      request(service.server)
        .post("/v1/auth/signout")
        .set("Cookie", cookie)
        .set(headers)
        .send(body);

    it("is refused from another site, with the cookie the browser sent along", async () => {
      const tries: Record<string, string>[] = [
        { "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json" },
        { "Sec-Fetch-Site": "same-site", "Content-Type": "application/json" },
        { Origin: "https://evil.example", "Content-Type": "application/json" },
        { "Content-Type": "application/json" },
      ];
      for (const headers of tries) {
        const res = await signout(headers);
        expect(res.status, JSON.stringify(headers)).to.equal(403);
        expect(res.body.error.details.reason).to.equal("cross_site");
      }
    });

    it("is refused from the dashboard's own origin with a body a form could send as text", async () => {
      const res = await signout({ "Sec-Fetch-Site": "same-origin", "Content-Type": "text/plain" });
      expect(res.status).to.equal(403);
      expect(res.body.error.details.reason).to.equal("content_type");
    });

    it("is taken from the dashboard's own origin, by Sec-Fetch-Site or, without it, by Origin", async () => {
      const origin = new URL(service.settings.publicBaseUrl).origin;
      const res = await signout({ Origin: origin, "Content-Type": "application/json" });
      expect(res.status).to.equal(200);
    });
  });

  describe("the per-IP limits", () => {
    it("429 with Retry-After for the 21st sign-in and the 6th sign-up from one IP in a minute", async () => {
      const from = ip();
      for (let n = 0; n < 20; n++) {
        const res = await post("/v1/auth/signin", { email: email(), password: PASSWORD }, from);
        expect(res.status).to.equal(401);
      }
      const over = await post("/v1/auth/signin", { email: email(), password: PASSWORD }, from);
      expect(over.status).to.equal(429);
      expect(Number(over.headers["retry-after"])).to.be.within(1, 60);
      const other = ip();
      for (let n = 0; n < 5; n++) {
        expect(
          (await post("/v1/auth/signup", { email: email(), password: PASSWORD }, other)).status,
        ).to.equal(202);
      }
      const sixth = await post("/v1/auth/signup", { email: email(), password: PASSWORD }, other);
      expect(sixth.status).to.equal(429);
      expect(Number(sixth.headers["retry-after"])).to.be.within(1, 60);
    });

    it("5 magic links and 10 verifications a minute per IP", async () => {
      const from = ip();
      for (let n = 0; n < 5; n++) {
        expect((await post("/v1/auth/magic-link", { email: email() }, from)).status).to.equal(202);
      }
      expect((await post("/v1/auth/magic-link", { email: email() }, from)).status).to.equal(429);
      for (let n = 0; n < 10; n++) {
        expect((await post("/v1/auth/verify", { token: "ml_nope" }, from)).status).to.equal(401);
      }
      expect((await post("/v1/auth/verify", { token: "ml_nope" }, from)).status).to.equal(429);
    });
  });
});

describe("dashboard accounts: sign-up by invitation only, and the client IP", function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let service: TestService;

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url); // SITEVOICE_SIGNUP and TRUSTED_PROXIES unset
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("refuses sign-up by default (invite), creating no user", async () => {
    const res = await request(service.server)
      .post("/v1/auth/signup")
      .send({ email: email(), password: PASSWORD });
    expect(res.status).to.equal(403);
    expect(res.body.error.details.reason).to.equal("invite_only");
    expect(await service.store.db.knex("users").count({ n: "*" })).to.deep.equal([{ n: 0 }]);
  });

  it("does not trust X-Forwarded-For by default: a spoofed one does not escape the limit", async () => {
    for (let n = 0; n < 20; n++) {
      const res = await request(service.server)
        .post("/v1/auth/signin")
        .set("X-Forwarded-For", `203.0.113.${n + 1}`)
        .send({ email: email(), password: PASSWORD });
      expect(res.status).to.equal(401);
    }
    const over = await request(service.server)
      .post("/v1/auth/signin")
      .set("X-Forwarded-For", "203.0.113.99")
      .send({ email: email(), password: PASSWORD });
    expect(over.status).to.equal(429);
  });
});

describe("magic links under a fake clock, mailed to a real SMTP server", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  let mailer: Mailer;
  let accounts: AccountService;
  const clock = { now: Date.parse("2026-11-26T12:00:00.000Z") };
  let address: string;

  /** The sign-in link's token in the newest mail to `to`, as a reader would take it. */
  const signInToken = async (to: string) => {
    const mail = smtp.received.filter((m) => m.to.includes(to)).at(-1);
    const text = (await simpleParser(mail!.raw)).text ?? "";
    const link = /https?:\/\/\S+\/dashboard\/verify#token=(ml_[A-Za-z0-9_-]+)/.exec(text);
    expect(link, text).to.not.equal(null);
    return link![1]!;
  };

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
    smtp = await smtpServer();
    const logger = pino({ level: "silent" });
    mailer = smtpMailer(`smtp://127.0.0.1:${smtp.port}`, "Sitevoice <auth@sitevoice.test>", logger);
    accounts = new AccountService({
      store: service.store,
      ring: service.ring,
      passwords: argon2idHasher(),
      mailer,
      logger,
      publicBaseUrl: "https://voice.example",
      signup: "open",
      now: () => clock.now,
    });
    address = email();
    accounts.signup({ email: address, password: PASSWORD });
    await accounts.verify(await mailedToken(smtp, address, "/dashboard/confirm"));
  });
  after(async () => {
    await mailer?.close();
    await smtp?.close();
    await service?.stop();
    await database?.drop();
  });

  it("mails a link whose token signs in once, within 15 minutes", async () => {
    accounts.magicLink(address.toUpperCase());
    await accounts.settled();
    const token = await signInToken(address);
    clock.now += MAGIC_LINK_TTL_MS - 1;
    const signedIn = await accounts.verify(token);
    expect(signedIn.user.email).to.equal(address);
    expect(await accounts.session(signedIn.token)).to.not.equal(undefined);
    const again = await accounts.verify(token).catch((error: unknown) => error);
    expect(again).to.have.property("code", "invalid_token");
  });

  it("refuses a token at 15 minutes, unused", async () => {
    accounts.magicLink(address);
    await accounts.settled();
    const token = await signInToken(address);
    clock.now += MAGIC_LINK_TTL_MS;
    const late = await accounts.verify(token).catch((error: unknown) => error);
    expect(late).to.have.property("code", "invalid_token");
  });

  it("mails nothing for an unknown email, and keeps only the token's hash", async () => {
    const before = smtp.received.length;
    accounts.magicLink(email());
    await accounts.settled();
    expect(smtp.received.length).to.equal(before);
    accounts.magicLink(address);
    await accounts.settled();
    const token = await signInToken(address);
    const rows = await service.store.db.knex("auth_tokens").select("*");
    expect(JSON.stringify(rows)).to.not.contain(token);
  });
});
