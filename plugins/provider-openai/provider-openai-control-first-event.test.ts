/**
 * OpenAI sends its first events (`session.created`) as soon as a control connection is open, and
 * they may reach the service in the same TCP read as the answer to the upgrade. A raw server here
 * writes both at once, so that a listener attached one tick after the connection opened would
 * miss them.
 */
import crypto from "node:crypto";
import net from "node:net";
import { expect } from "chai";
import type { PluginHost, ResponseUsage, VoiceProvider } from "sitevoice";
import { hostWithBuiltins, signal } from "./provider-openai-fixtures.ts";
import { waitUntil } from "../../test/helpers/wait-until.ts";

/** A text frame from a server (unmasked), for payloads under 64 KiB. */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const head =
    payload.length < 126
      ? Buffer.from([0x81, payload.length])
      : Buffer.from([0x81, 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([head, payload]);
}

/** Answers a WebSocket upgrade and sends `events` in the same write as the answer. */
function eagerServer(events: object[]): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    let request = "";
    socket.on("data", (chunk) => {
      request += chunk.toString("latin1");
      if (!request.includes("\r\n\r\n")) return;
      const key = /sec-websocket-key: *(\S+)/i.exec(request)?.[1] ?? "";
      const accept = crypto
        .createHash("sha1")
        .update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
        .digest("base64");
      const answer = Buffer.from(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
          `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
        "latin1",
      );
      socket.write(Buffer.concat([answer, ...events.map((e) => textFrame(JSON.stringify(e)))]));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      }),
    ),
  );
}

describe("provider-openai call control, events sent with the connection's opening", () => {
  let host: PluginHost;
  let server: Awaited<ReturnType<typeof eagerServer>>;

  afterEach(async () => {
    await host?.close();
    await server?.close();
  });

  it("hears a session and a usage that came in the same read as the upgrade's answer", async () => {
    server = await eagerServer([
      { type: "session.created", session: { model: "gpt-realtime", instructions: "Hi" } },
      { type: "response.done", response: { id: "resp_1", usage: { input_tokens: 1 } } },
    ]);
    host = await hostWithBuiltins();
    const provider: VoiceProvider = await host.instance(
      "voice-provider",
      "openai",
      { baseUrl: `http://127.0.0.1:${server.port}`, apiKey: "sk-test" },
      "global",
    );
    const sessions: unknown[] = [];
    const usage: ResponseUsage[] = [];
    const control = await provider.controlCall!(
      "rtc_eager",
      {
        session: (session) => sessions.push(session),
        usage: (one) => usage.push(one),
        closed: () => undefined,
      },
      { signal: signal() },
    );
    await waitUntil("the first events", () => sessions.length === 1 && usage.length === 1, 2_000);
    expect(usage[0]).to.include({ response_id: "resp_1" });
    control.close();
  });
});
