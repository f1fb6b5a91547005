/**
 * The service's outgoing mail: magic links, invitations, the owner's notices. One mailer is built
 * in the composition root: over SMTP when SMTP_URL is set, else one that writes each mail's
 * subject and recipient to the log with a warning (never its body, which may hold a token).
 *
 * The SMTP server is the operator's own setting, never a customer's, so its connections do not go
 * through the outbound policy (core/security/outbound-policy.ts) that guards adapters, the voice
 * provider and webhooks against SSRF: a relay on the internal network needs no allow-list entry.
 */
import nodemailer from "nodemailer";
import type { Logger } from "pino";

export interface Mail {
  /** One address. */
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the mail; rejects with a MailError otherwise. */
  send(mail: Mail): Promise<void>;
  /** Waits for the mails under way, then closes the connections. */
  close(): Promise<void>;
}

/** A mail not sent. The message names the recipient and the reason, never a credential. */
export class MailError extends Error {
  constructor(
    message: string,
    /** nodemailer's code: ECONNECTION, ETIMEDOUT, EAUTH, EENVELOPE, EMESSAGE, … */
    readonly code: string | undefined,
    /** The SMTP reply code, when the server answered. */
    readonly responseCode: number | undefined,
  ) {
    super(message);
    this.name = "MailError";
  }
}

/** How long connecting, the greeting and any silence on the socket may last. */
const TIMEOUT_MS = 10_000;

/** The secrets of an SMTP URL in every form they may appear in: as written, decoded, base64. */
function secretsOf(url: URL): string[] {
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  if (pass === "") return [];
  const base64 = (text: string) => Buffer.from(text).toString("base64");
  return [url.password, pass, base64(pass), base64(`\u0000${user}\u0000${pass}`)];
}

function scrub(text: string, secrets: string[]): string {
  let clean = text;
  for (const secret of secrets) clean = clean.split(secret).join("[redacted]");
  return clean;
}

/**
 * A pooled SMTP transport to `smtpUrl` (`smtp://[user:pass@]host[:port]`, STARTTLS when the server
 * offers it, port 587 by default; `smtps://…`, TLS from the start, port 465 by default), sending
 * as `from`. Connects on the first mail, not before, so start-up does not wait on the relay.
 */
export function smtpMailer(smtpUrl: string, from: string, logger: Logger): Mailer {
  const url = new URL(smtpUrl);
  const secrets = secretsOf(url);
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: 2,
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port === "" ? undefined : Number(url.port),
    secure: url.protocol === "smtps:",
    auth:
      url.username === ""
        ? undefined
        : { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) },
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
    dnsTimeout: TIMEOUT_MS,
    logger: false,
  });
  transport.on("error", (err: Error) =>
    logger.warn({ err: { message: scrub(err.message, secrets) } }, "smtp transport error"),
  );
  const underWay = new Set<Promise<unknown>>();
  let closed = false;
  return {
    async send(mail) {
      if (closed)
        throw new MailError(
          `mail to ${mail.to} not sent: the mailer is closed`,
          "ECLOSED",
          undefined,
        );
      const sending = transport.sendMail({ from, ...mail });
      underWay.add(sending);
      try {
        await sending;
      } catch (error) {
        const err = error as Error & { code?: string; responseCode?: number };
        throw new MailError(
          `mail to ${mail.to} not sent: ${scrub(err.message, secrets)}`,
          err.code,
          err.responseCode,
        );
      } finally {
        underWay.delete(sending);
      }
    },
    async close() {
      closed = true;
      await Promise.allSettled(underWay);
      transport.close();
    },
  };
}

/** Without SMTP: each mail's recipient and subject at warn, so an operator sees what was not sent. */
export function logMailer(logger: Logger): Mailer {
  return {
    async send(mail) {
      logger.warn(
        { mail: { to: mail.to, subject: mail.subject } },
        "mail not sent: SMTP_URL is not set, so it is only logged (recipient and subject)",
      );
    },
    async close() {},
  };
}

/** The mailer of the settings: SMTP when SMTP_URL is set, else the log. */
export function mailerOf(
  settings: { mail: { smtpUrl?: string; from: string } },
  logger: Logger,
): Mailer {
  const { smtpUrl, from } = settings.mail;
  return smtpUrl === undefined ? logMailer(logger) : smtpMailer(smtpUrl, from, logger);
}
