/**
 * A real SMTP server (the `smtp-server` package) on a free port of 127.0.0.1 that keeps every
 * mail it is given: with `auth`, it takes only that user and password.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface Received {
  from: string;
  to: string[];
  raw: string;
}

export async function smtpServer(auth?: { user: string; password: string }): Promise<{
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
        received.push({
          from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, received, close: () => new Promise((resolve) => server.close(resolve)) };
}
