/**
 * The mailer on a real SMTP server (the `smtp-server` package on 127.0.0.1, with a user and a
 * password): what arrives, what a refused connection or a wrong password answers (never the
 * password), the log mailer's warning (never the body), and which one the composition root picks.
 */
import crypto from "node:crypto";
import { Writable } from "node:stream";
import { expect } from "chai";
import pino from "pino";
import { composeParts, createLogger } from "../core/compose.ts";
import { logMailer, MailError, smtpMailer, type Mailer } from "../core/mail/mailer.ts";
import { loadSettings } from "../core/settings.ts";
import { smtpServer } from "./helpers/smtp-server.ts";

const USER = "mailer";
const PASSWORD = "hunter2 p@ss:w/rd";
const FROM = "Sitevoice <no-reply@sitevoice.test>";
const silent = pino({ level: "silent" });

const smtpUrl = (port: number, password = PASSWORD) =>
  `smtp://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const { port, close } = await smtpServer({ user: USER, password: PASSWORD });
  await close();
  return port;
}

/** The header block of a raw message, its folded lines joined. */
const headersOf = (raw: string) => raw.split("\r\n\r\n")[0]!.replace(/\r\n[ \t]+/g, " ");

async function rejection(promise: Promise<unknown>): Promise<MailError> {
  try {
    await promise;
  } catch (error) {
    return error as MailError;
  }
  throw new Error("expected a rejection");
}

/** A logger whose JSON lines the test reads. */
function capturedLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
  const settings = loadSettings({ LOG_LEVEL: "info" });
  return { logger: createLogger(settings, stream), logged: () => lines.join("") };
}

describe("the mailer", () => {
  let server: Awaited<ReturnType<typeof smtpServer>>;
  let mailer: Mailer | undefined;

  before(async () => {
    server = await smtpServer({ user: USER, password: PASSWORD });
  });
  after(() => server.close());
  afterEach(async () => {
    await mailer?.close();
    mailer = undefined;
    server.received.length = 0;
  });

  it("sends over SMTP with the user and password of the URL, from MAIL_FROM", async () => {
    mailer = smtpMailer(smtpUrl(server.port), FROM, silent);
    await mailer.send({
      to: "owner@acme.example",
      subject: "Webhook disabled",
      text: "Your endpoint https://acme.example/hook was disabled.",
    });
    expect(server.received).to.have.length(1);
    const [mail] = server.received;
    expect(mail!.from).to.equal("no-reply@sitevoice.test");
    expect(mail!.to).to.deep.equal(["owner@acme.example"]);
    const headers = headersOf(mail!.raw);
    expect(headers).to.match(/^From: Sitevoice <no-reply@sitevoice\.test>$/m);
    expect(headers).to.match(/^To: owner@acme\.example$/m);
    expect(headers).to.match(/^Subject: Webhook disabled$/m);
    expect(mail!.raw).to.include("Your endpoint https://acme.example/hook was disabled.");
  });

  it("sends a text and an HTML part when given both, several at once through the pool", async () => {
    mailer = smtpMailer(smtpUrl(server.port), FROM, silent);
    await Promise.all(
      ["a", "b", "c"].map((n) =>
        mailer!.send({
          to: `${n}@acme.example`,
          subject: `Sign in ${n}`,
          text: `Plain ${n}`,
          html: `<p>Rich ${n}</p>`,
        }),
      ),
    );
    const byRecipient = new Map(server.received.map((mail) => [mail.to[0], mail.raw]));
    expect([...byRecipient.keys()].sort()).to.deep.equal([
      "a@acme.example",
      "b@acme.example",
      "c@acme.example",
    ]);
    const raw = byRecipient.get("b@acme.example")!;
    expect(headersOf(raw)).to.match(/^Content-Type: multipart\/alternative;/m);
    expect(raw).to.include("Plain b").and.to.include("<p>Rich b</p>");
  });

  it("waits for the mails under way when closed", async () => {
    mailer = smtpMailer(smtpUrl(server.port), FROM, silent);
    const sending = mailer.send({ to: "late@acme.example", subject: "Late", text: "Still sent" });
    await mailer.close();
    await sending;
    expect(server.received.map((mail) => mail.to[0])).to.deep.equal(["late@acme.example"]);
    const closed = await rejection(mailer.send({ to: "x@acme.example", subject: "s", text: "t" }));
    expect(closed.code).to.equal("ECLOSED");
  });

  it("rejects a wrong password with the server's answer, never the password", async () => {
    const wrong = `wrong-${crypto.randomBytes(6).toString("hex")}`;
    mailer = smtpMailer(smtpUrl(server.port, wrong), FROM, silent);
    const error = await rejection(
      mailer.send({ to: "owner@acme.example", subject: "s", text: "t" }),
    );
    expect(error).to.be.instanceOf(MailError);
    expect(error.code).to.equal("EAUTH");
    expect(error.responseCode).to.equal(535);
    expect(error.message).to.match(/^mail to owner@acme\.example not sent: Invalid login/);
    const everything = JSON.stringify({ ...error, message: error.message, stack: error.stack });
    expect(everything).not.to.include(wrong);
    expect(everything).not.to.include(Buffer.from(wrong).toString("base64"));
    expect(server.received).to.deep.equal([]);
  });

  it("rejects a refused connection with a clear error, never the password", async () => {
    mailer = smtpMailer(smtpUrl(await closedPort()), FROM, silent);
    const error = await rejection(
      mailer.send({ to: "owner@acme.example", subject: "s", text: "t" }),
    );
    expect(error).to.be.instanceOf(MailError);
    expect(error.message).to.match(/^mail to owner@acme\.example not sent: .*ECONNREFUSED/);
    expect(`${error.message} ${error.stack}`).not.to.include("hunter2");
  });

  it("without SMTP, logs the recipient and subject at warn, never the body", async () => {
    const { logger, logged } = capturedLogger();
    await logMailer(logger).send({
      to: "owner@acme.example",
      subject: "Your sign-in link",
      text: "https://sitevoice.test/verify?token=TOKEN-SECRET",
      html: "<a href='https://sitevoice.test/verify?token=TOKEN-SECRET'>Sign in</a>",
    });
    const [entry] = logged()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entry!.level).to.equal(40);
    expect(entry!.mail).to.deep.equal({ to: "owner@acme.example", subject: "Your sign-in link" });
    expect(entry!.msg).to.match(/SMTP_URL is not set/);
    expect(logged()).not.to.include("TOKEN-SECRET");
  });

  describe("in the composition root", () => {
    const compose = async (env: Record<string, string>) => {
      const { logger, logged } = capturedLogger();
      const settings = loadSettings({
        DATABASE_URL: "sqlite::memory:",
        SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
        SITEVOICE_SITES_DIR: "",
        ...env,
      });
      return { parts: await composeParts(settings, logger), logged };
    };

    it("is the log mailer without SMTP_URL", async () => {
      const { parts, logged } = await compose({});
      try {
        await parts.mailer.send({ to: "owner@acme.example", subject: "Hello", text: "BODY-TEXT" });
      } finally {
        await parts.close();
      }
      expect(logged()).to.include('"subject":"Hello"').and.not.to.include("BODY-TEXT");
      expect(server.received).to.deep.equal([]);
    });

    it("is SMTP_URL's server, sending as MAIL_FROM, when set; the password never logged", async () => {
      const { parts, logged } = await compose({
        SMTP_URL: smtpUrl(server.port),
        MAIL_FROM: "Acme Voice <voice@acme.example>",
      });
      try {
        await parts.mailer.send({ to: "owner@acme.example", subject: "Hello", text: "Body" });
      } finally {
        await parts.close();
      }
      expect(server.received.map((mail) => mail.from)).to.deep.equal(["voice@acme.example"]);
      expect(logged()).not.to.include("hunter2");
    });
  });
});
