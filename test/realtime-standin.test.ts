/**
 * The stand-in for OpenAI's Realtime WebRTC calls endpoint (test/helpers/realtime-calls.ts): a real
 * Chromium connects to it as the widget does, over a page served on 127.0.0.1, and the endpoint
 * refuses what the widget must never send, in OpenAI's error shape, with CORS headers.
 */
import http from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { launchChromium, requireChromium } from "./helpers/browser.ts";
import {
  CLIENT_SECRETS_PATH,
  startOpenAiStandin,
  validSecretRequest,
  type OpenAiStandin,
} from "./helpers/openai-standin.ts";
import type { RealtimeCall, RealtimeEvent } from "./helpers/realtime-call.ts";
import { CALLS_PATH } from "./helpers/realtime-calls.ts";
import {
  REALTIME_WIDGET_PAGE,
  type Connected,
  type WidgetPage,
} from "./helpers/realtime-widget-page.ts";

async function mint(standin: OpenAiStandin): Promise<string> {
  const response = await fetch(`${standin.baseUrl}${CLIENT_SECRETS_PATH}`, {
    method: "POST",
    headers: { authorization: `Bearer ${standin.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(validSecretRequest()),
  });
  return ((await response.json()) as { value: string }).value;
}

/** Waits until `check` holds, for at most `timeoutMs`; fails naming `what`. */
async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("OpenAI Realtime calls stand-in", () => {
  let standin: OpenAiStandin;
  let clock: number;

  beforeEach(async () => {
    clock = Date.now();
    standin = await startOpenAiStandin({ now: () => clock });
  });

  afterEach(() => standin.close());

  describe("with a browser", function () {
    let browser: Browser;
    let pageServer: http.Server;
    let page: Page;
    let connected: Connected;
    let call: RealtimeCall;
    let token: string;

    before(async function () {
      requireChromium(this);
      browser = await launchChromium();
      pageServer = http.createServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/html" }).end(REALTIME_WIDGET_PAGE);
      });
      pageServer.listen(0, "127.0.0.1");
      await once(pageServer, "listening");
    });

    after(async () => {
      await browser?.close();
      pageServer?.close();
    });

    beforeEach(async () => {
      token = await mint(standin);
      page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`);
      const url = `${standin.baseUrl}${CALLS_PATH}`;
      connected = await page.evaluate(([u, t]) => (window as unknown as WidgetPage).connect(u, t), [
        url,
        token,
      ] as const);
      call = await standin.calls.nextCall();
      await call.opened;
    });

    afterEach(() => page.close());

    /** The first event of `type` the page received, once it did. */
    const pageEvent = async (type: string): Promise<RealtimeEvent> => {
      const handle = await page.waitForFunction(
        (wanted) => (window as unknown as WidgetPage).events.find((event) => event.type === wanted),
        type,
        { timeout: 5000 },
      );
      return (await handle.jsonValue()) as RealtimeEvent;
    };

    it("answers the offer with 201, an SDP answer and the call's Location, exposed", () => {
      expect(connected.status).to.equal(201);
      expect(connected.contentType).to.equal("application/sdp");
      expect(connected.location).to.match(/^\/v1\/realtime\/calls\/rtc_[0-9a-f]+$/);
      expect(connected.location).to.equal(`${CALLS_PATH}/${call.id}`);
      expect(call.token).to.equal(token);
    });

    it("sends session.created with the minted session when the events channel opens", async () => {
      const event = await pageEvent("session.created");
      expect(event.event_id).to.be.a("string");
      expect(event).to.have.nested.property("session.model", "gpt-realtime");
      expect(event).to.have.nested.property("session.instructions", "Be brief.");
      expect(event).to.have.nested.property("session.audio.output.voice", "marin");
      expect(event).to.have.nested.property("session.tools[0].name", "scroll_to");
    });

    it("answers session.update with session.updated", async () => {
      await page.evaluate(() => {
        const update = { type: "session.update", session: { instructions: "Be briefer." } };
        (window as unknown as WidgetPage).dc.send(JSON.stringify(update));
      });
      const event = await pageEvent("session.updated");
      expect(event).to.have.nested.property("session.instructions", "Be briefer.");
      expect(await call.nextEvent("session.update")).to.have.nested.property(
        "session.instructions",
        "Be briefer.",
      );
    });

    it("calls a function in the page and resolves with the page's output", async () => {
      const output = await call.callFunction("scroll_to", { section_id: "pricing" });
      expect(output).to.deep.equal({ called: "scroll_to", with: { section_id: "pricing" } });
      const done = await pageEvent("response.function_call_arguments.done");
      expect(done).to.include({ name: "scroll_to", arguments: '{"section_id":"pricing"}' });
    });

    it("sends the visitor's transcript", async () => {
      call.visitorSays("Where are your prices?", { evenUnconfigured: true });
      const event = await pageEvent("conversation.item.input_audio_transcription.completed");
      expect(event).to.include({ content_index: 0, transcript: "Where are your prices?" });
      expect(event.item_id).to.be.a("string");
    });

    it("speaks: audio started, its transcript, audio stopped, then response.done", async () => {
      await call.assistantSays("Our prices are on this page.", 50);
      await pageEvent("response.done");
      const types = await page.evaluate(() =>
        (window as unknown as WidgetPage).events.map((event) => String(event.type)),
      );
      const speaking = [
        "output_audio_buffer.started",
        "response.output_audio_transcript.done",
        "output_audio_buffer.stopped",
        "response.done",
      ];
      expect(types.filter((type) => speaking.includes(type))).to.deep.equal(speaking);
      const transcript = await pageEvent("response.output_audio_transcript.done");
      expect(transcript).to.include({ transcript: "Our prices are on this page." });
    });

    it("plays Opus audio that the page's peer connection receives", async () => {
      await until(
        async () =>
          (await page.evaluate(() => (window as unknown as WidgetPage).inboundAudioPackets())) > 0,
        "inbound audio packets in the page",
      );
      expect(call.audioPacketsSent()).to.be.greaterThan(0);
    });

    it("counts the RTP packets of the browser's microphone", async () => {
      await until(() => call.audioPacketsReceived() > 0, "packets from the microphone");
    });

    it("hangUp ends the call: closed resolves and the page's events channel closes", async () => {
      call.hangUp();
      await call.closed;
      await page.waitForFunction(
        () => (window as unknown as WidgetPage).dc.readyState === "closed",
        undefined,
        {
          timeout: 10_000,
        },
      );
    });

    it("resolves closed when the browser closes its peer connection", async () => {
      await page.evaluate(() => (window as unknown as WidgetPage).pc.close());
      await call.closed;
    });
  });

  describe("refuses in OpenAI's error shape", () => {
    const offer = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n";
    const post = async (headers: Record<string, string>, body = offer) => {
      const response = await fetch(`${standin.baseUrl}${CALLS_PATH}`, {
        method: "POST",
        headers,
        body,
      });
      const answer = (await response.json()) as { error: Record<string, unknown> };
      expect(answer.error).to.have.all.keys("message", "type", "param", "code");
      expect(response.headers.get("access-control-allow-origin")).to.equal("*");
      return { status: response.status, error: answer.error };
    };
    const sdp = { "content-type": "application/sdp" };

    it("401 without an Authorization header", async () => {
      expect((await post(sdp)).status).to.equal(401);
    });

    it("401 with an ephemeral key it did not mint", async () => {
      const { status, error } = await post({ ...sdp, authorization: "Bearer ek_0123456789abcdef" });
      expect(status).to.equal(401);
      expect(error.code).to.equal("invalid_api_key");
    });

    it("401 with an ephemeral key that expired", async () => {
      const token = await mint(standin);
      clock += 61_000;
      expect((await post({ ...sdp, authorization: `Bearer ${token}` })).status).to.equal(401);
    });

    it("401 with the standard key, which the widget must never hold", async () => {
      const { status } = await post({ ...sdp, authorization: `Bearer ${standin.apiKey}` });
      expect(status).to.equal(401);
    });

    it("400 for a body sent as application/json", async () => {
      const headers = {
        "content-type": "application/json",
        authorization: `Bearer ${await mint(standin)}`,
      };
      expect((await post(headers)).status).to.equal(400);
    });

    it("400 for a body that is not SDP", async () => {
      const headers = { ...sdp, authorization: `Bearer ${await mint(standin)}` };
      expect((await post(headers, "hello")).status).to.equal(400);
    });

    it("400 for an SDP offer without audio and data channel sections", async () => {
      const headers = { ...sdp, authorization: `Bearer ${await mint(standin)}` };
      expect((await post(headers)).status).to.equal(400);
    });

    it("503 while its behaviour is fail", async () => {
      standin.calls.behaviour = "fail";
      const { status, error } = await post({
        ...sdp,
        authorization: `Bearer ${await mint(standin)}`,
      });
      expect(status).to.equal(503);
      expect(error.type).to.equal("server_error");
    });
  });

  it("answers a CORS preflight for a cross-origin POST", async () => {
    const response = await fetch(`${standin.baseUrl}${CALLS_PATH}`, {
      method: "OPTIONS",
      headers: {
        origin: "http://127.0.0.1:1",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });
    expect(response.status).to.equal(204);
    expect(response.headers.get("access-control-allow-origin")).to.equal("*");
    expect(response.headers.get("access-control-allow-methods")).to.equal("POST");
    expect(response.headers.get("access-control-allow-headers")).to.equal(
      "authorization, content-type",
    );
  });
});
