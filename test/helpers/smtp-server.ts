/**
 * A real SMTP server (the `smtp-server` package) on a free port of 127.0.0.1 that keeps every
 * mail it is given: with `auth`, it takes only that user and password; with `acceptAfterMs`, it
 * holds each mail that long before accepting it, as a slow relay does, and tells `onAccepted`
 * when it does.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface Received {
  from: string;
  to: string[];
  raw: string;
}

export interface SlowRelay {
  /** How long each mail waits, once its data arrived, before the server accepts it. */
  acceptAfterMs?: number;
  /** Called as each mail is accepted (and kept in `received`). */
  onAccepted?(mail: Received): void;
}

export async function smtpServer(
  auth?: { user: string; password: string },
  relay: SlowRelay = {},
): Promise<{
  port: number;
  received: Received[];
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const server = new SMTPServer({
    logger: false,
    disabledCommands: auth === undefined ? ["STARTTLS", "AUTH"] : ["STARTTLS"], // plain text on loopback
    allowInsecureAuth: true,
    authOptional: auth === undefined,
    onAuth(given, _session, callback) {
      if (auth !== undefined && given.username === auth.user && given.password === auth.password) {
        callback(null, { user: auth.user });
      } else callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const mail = {
          from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        };
        const accept = () => {
          received.push(mail);
          relay.onAccepted?.(mail);
          callback();
        };
        if (relay.acceptAfterMs === undefined) accept();
        else setTimeout(accept, relay.acceptAfterMs);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, received, close: () => new Promise((resolve) => server.close(resolve)) };
}
