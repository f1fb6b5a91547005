/**
 * The Realtime stand-in's text and captions, against OpenAI's contract (see realtime-call.ts):
 * a Chromium page connected as the widget is (realtime-client.ts) types into the conversation, gets the model's words
 * as text or as the transcript of its audio, and the visitor's speech transcribed; a text-only
 * session is minted and called without a microphone; what OpenAI refuses comes back as an
 * `error` event.
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
import { connectPage, type RealtimeClient } from "./helpers/realtime-client.ts";
import { CALLS_PATH } from "./helpers/realtime-calls.ts";
import { REALTIME_WIDGET_PAGE, type PageAudio } from "./helpers/realtime-widget-page.ts";

type Session = ReturnType<typeof validSecretRequest>["session"] & Record<string, unknown>;

const TEXT_ONLY = { output_modalities: ["text"] };
const TRANSCRIBED = {
  audio: {
    input: { transcription: { model: "gpt-4o-transcribe" } },
    output: { voice: "marin" },
  },
};

describe("OpenAI Realtime stand-in: text and captions", function () {
  let standin: OpenAiStandin;
  let browser: Browser;
  let pageServer: http.Server;
  let page: Page;

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
    standin = await startOpenAiStandin();
    page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`);
  });

  afterEach(async () => {
    await page.close();
    await standin.close();
  });

  async function mint(session: Partial<Session> = {}) {
    const request = validSecretRequest();
    const response = await fetch(`${standin.baseUrl}${CLIENT_SECRETS_PATH}`, {
      method: "POST",
      headers: { authorization: `Bearer ${standin.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ ...request, session: { ...request.session, ...session } }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function connect(session: Partial<Session> = {}, audio: PageAudio = "receive") {
    const { body } = await mint(session);
    return connectPage(page, `${standin.baseUrl}${CALLS_PATH}`, body.value as string, audio);
  }

  /** A connected client, its call, and `session.created` received. */
  async function open(session: Partial<Session> = {}): Promise<[RealtimeClient, RealtimeCall]> {
    const client = await connect(session);
    const call = await standin.calls.nextCall();
    await client.next((event) => event.type === "session.created");
    return [client, call];
  }

  const ofType = (type: string) => (event: RealtimeEvent) => event.type === type;

  const typed = (text: string, extra: Record<string, unknown> = {}) => ({
    type: "conversation.item.create",
    item: { type: "message", role: "user", content: [{ type: "input_text", text }], ...extra },
  });

  describe("a text-only session", () => {
    it('mints a client secret whose session has output_modalities ["text"]', async () => {
      const { status, body } = await mint(TEXT_ONLY);
      expect(status).to.equal(200);
      expect(body).to.have.nested.property("session.output_modalities").deep.equal(["text"]);
    });

    it("refuses output_modalities with both text and audio, as OpenAI does", async () => {
      const { status, body } = await mint({ output_modalities: ["text", "audio"] });
      expect(status).to.equal(400);
      expect(body).to.have.nested.property("error.param", "session.output_modalities");
    });

    it("refuses an output modality OpenAI does not have", async () => {
      const { status, body } = await mint({ output_modalities: ["video"] });
      expect(status).to.equal(400);
      expect(body).to.have.nested.property("error.code", "invalid_value");
    });

    it("answers an offer whose audio only receives (no microphone) and opens the call", async () => {
      const client = await connect(TEXT_ONLY);
      expect(client.status).to.equal(201);
      const created = await client.next(ofType("session.created"));
      expect(created).to.have.nested.property("session.output_modalities").deep.equal(["text"]);
    });

    it("refuses an offer without an audio section with OpenAI's invalid_offer", async () => {
      const client = await connect(TEXT_ONLY, "none");
      expect(client.status).to.equal(400);
      expect(client.refusal).to.deep.equal({
        error: {
          message: "Invalid SDP offer. Offer did not have an audio media section.",
          type: "invalid_request_error",
          param: null,
          code: "invalid_offer",
        },
      });
    });

    it("answers typed text in text: the item, then the response's text deltas in order", async () => {
      const [client, call] = await open(TEXT_ONLY);
      const start = (await client.events()).length - 1;
      await client.send(typed("Do you deliver?"));
      await client.send({ type: "response.create" });
      expect(await call.nextTyped()).to.equal("Do you deliver?");
      await call.nextEvent("response.create");
      call.assistantWrites("We deliver in town.");
      const done = await client.next(ofType("response.done"), start);
      expect(await client.typesSince(start)).to.deep.equal([
        "conversation.item.added",
        "conversation.item.done",
        "response.created",
        "response.output_item.added",
        "conversation.item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "conversation.item.done",
        "response.done",
      ]);
      const deltas = (await client.events()).filter(ofType("response.output_text.delta"));
      expect(deltas.map((event) => event.delta).join("")).to.equal("We deliver in town.");
      const textDone = await client.next(ofType("response.output_text.done"), start);
      expect(textDone).to.include({
        text: "We deliver in town.",
        output_index: 0,
        content_index: 0,
      });
      expect(textDone.item_id).to.equal(deltas[0]!.item_id);
      expect(done).to.have.nested.property("response.output[0].content[0].type", "output_text");
      expect(done).to.have.nested.property("response.output_modalities").deep.equal(["text"]);
    });

    it("echoes the typed item with an id, after the previous item", async () => {
      const [client, call] = await open(TEXT_ONLY);
      await client.send(typed("First."));
      await client.send(typed("Second.", { id: "item_mine" }));
      await call.nextTyped();
      await call.nextTyped();
      const added = await client.next(
        (event) => event.type === "conversation.item.added" && event.previous_item_id !== null,
      );
      const first = (await client.events()).find(ofType("conversation.item.added"))!;
      expect(first).to.have.nested.property("item.content[0].text", "First.");
      expect(added).to.have.nested.property("item.id", "item_mine");
      expect(added.previous_item_id).to.equal((first.item as RealtimeEvent).id);
    });

    it("calls a function and then writes its answer", async () => {
      const [client, call] = await open(TEXT_ONLY);
      // The page answers the call with {called, with} and a response.create.
      const output = await call.callFunction("search_site", { query: "opening hours" });
      expect(output).to.deep.equal({ called: "search_site", with: { query: "opening hours" } });
      const created = await client.next(ofType("response.created"));
      expect(created).to.have.nested.property("response.output_modalities").deep.equal(["text"]);
      call.assistantWrites("We open at nine.");
      const text = await client.next(ofType("response.output_text.done"));
      expect(text).to.include({ text: "We open at nine." });
    });

    it("refuses to play audio in a text session", async () => {
      const [, call] = await open(TEXT_ONLY);
      await expectRejection(call.assistantSays("Hello."), /output_modalities/);
    });
  });

  describe("a voice session", () => {
    it("speaks with transcript deltas, then the transcript done", async () => {
      const [client, call] = await open();
      const start = (await client.events()).length - 1;
      await call.assistantSays("We open at nine.", 10);
      await client.next(ofType("response.done"), start);
      expect(await client.typesSince(start)).to.deep.equal([
        "response.created",
        "response.output_item.added",
        "conversation.item.added",
        "response.content_part.added",
        "output_audio_buffer.started",
        "response.output_audio_transcript.delta",
        "response.output_audio_transcript.delta",
        "response.output_audio_transcript.delta",
        "response.output_audio_transcript.delta",
        "response.output_audio_transcript.done",
        "output_audio_buffer.stopped",
        "response.content_part.done",
        "response.output_item.done",
        "conversation.item.done",
        "response.done",
      ]);
      const deltas = (await client.events()).filter(
        ofType("response.output_audio_transcript.delta"),
      );
      expect(deltas.map((event) => event.delta).join("")).to.equal("We open at nine.");
      const part = await client.next(ofType("response.content_part.done"), start);
      expect(part).to.deep.include({ part: { type: "audio", transcript: "We open at nine." } });
    });

    it("refuses to write text in an audio response", async () => {
      const [, call] = await open();
      expect(() => call.assistantWrites("Hello.")).to.throw(/output_modalities/);
    });

    it("writes text when the response asked for text alone", async () => {
      const [client, call] = await open();
      await client.send({ type: "response.create", response: { output_modalities: ["text"] } });
      await call.nextEvent("response.create");
      call.assistantWrites("In writing.");
      expect(await client.next(ofType("response.output_text.done"))).to.include({
        text: "In writing.",
      });
    });

    it("speaks again after a response that was text alone: its modality was that response's", async () => {
      const [client, call] = await open();
      await client.send({ type: "response.create", response: { output_modalities: ["text"] } });
      await call.nextEvent("response.create");
      call.assistantWrites("In writing.");
      await call.assistantSays("And aloud.", 10);
      const done = await client.next(ofType("response.output_audio_transcript.done"));
      expect(done).to.include({ transcript: "And aloud." });
    });

    it("takes typed text during the call and answers it aloud", async () => {
      const [client, call] = await open();
      await client.send(typed("Is there parking?"));
      await client.send({ type: "response.create" });
      expect(await call.nextTyped()).to.equal("Is there parking?");
      await call.nextEvent("response.create");
      await call.assistantSays("Yes, behind the house.", 10);
      const done = await client.next(ofType("response.output_audio_transcript.done"));
      expect(done).to.include({ transcript: "Yes, behind the house." });
    });

    it("transcribes the visitor when the session configures transcription", async () => {
      const [client, call] = await open(TRANSCRIBED);
      const start = (await client.events()).length - 1;
      call.visitorSays("Two for tonight?");
      const completed = await client.next(
        ofType("conversation.item.input_audio_transcription.completed"),
        start,
      );
      expect(await client.typesSince(start)).to.deep.equal([
        "input_audio_buffer.speech_started",
        "input_audio_buffer.speech_stopped",
        "input_audio_buffer.committed",
        "conversation.item.added",
        "conversation.item.done",
        "conversation.item.input_audio_transcription.delta",
        "conversation.item.input_audio_transcription.delta",
        "conversation.item.input_audio_transcription.delta",
        "conversation.item.input_audio_transcription.completed",
      ]);
      const added = (await client.events()).find(ofType("conversation.item.added"))!;
      expect(added).to.have.nested.property("item.role", "user");
      expect(added).to.have.nested.property("item.content[0].type", "input_audio");
      expect(completed).to.include({ content_index: 0, transcript: "Two for tonight?" });
      expect(completed.item_id).to.equal((added.item as RealtimeEvent).id);
      expect(completed).to.have.nested.property("usage.type");
      const deltas = (await client.events()).filter(
        ofType("conversation.item.input_audio_transcription.delta"),
      );
      expect(deltas.map((event) => event.delta).join("")).to.equal("Two for tonight?");
    });

    it("refuses to transcribe for a session without transcription, as OpenAI sends none", async () => {
      const [, call] = await open();
      expect(() => call.visitorSays("Hello?")).to.throw(/audio\.input\.transcription/);
    });

    it("transcribes after a session.update that turns transcription on", async () => {
      const [client, call] = await open();
      await client.send({
        type: "session.update",
        session: { type: "realtime", audio: { input: { transcription: { model: "whisper-1" } } } },
      });
      const updated = await client.next(ofType("session.updated"));
      expect(updated).to.have.nested.property("session.audio.output.voice", "marin");
      call.visitorSays("Hello?");
      await client.next(ofType("conversation.item.input_audio_transcription.completed"));
    });
  });

  describe("refuses what OpenAI refuses, with an error event", () => {
    const cases: [string, RealtimeEvent, string, string][] = [
      [
        "a message without content",
        { type: "conversation.item.create", item: { type: "message", role: "user" } },
        "missing_required_parameter",
        "item.content",
      ],
      [
        "the beta content type 'text'",
        {
          type: "conversation.item.create",
          item: { type: "message", role: "user", content: [{ type: "text", text: "Hi" }] },
        },
        "invalid_value",
        "item.content[0].type",
      ],
      [
        "input_text without text",
        {
          type: "conversation.item.create",
          item: { type: "message", role: "user", content: [{ type: "input_text" }] },
        },
        "missing_required_parameter",
        "item.content[0].text",
      ],
      [
        "an assistant message with audio",
        {
          type: "conversation.item.create",
          item: {
            type: "message",
            role: "assistant",
            content: [{ type: "output_audio", transcript: "Hi" }],
          },
        },
        "invalid_value",
        "item.content[0].type",
      ],
      [
        "a role OpenAI does not have",
        {
          type: "conversation.item.create",
          item: { type: "message", role: "visitor", content: [{ type: "input_text", text: "Hi" }] },
        },
        "invalid_value",
        "item.role",
      ],
      [
        "an unknown item field",
        {
          type: "conversation.item.create",
          item: { type: "message", role: "user", content: [], name: "Ann" },
        },
        "unknown_parameter",
        "item.name",
      ],
      [
        "a function_call_output without output",
        {
          type: "conversation.item.create",
          item: { type: "function_call_output", call_id: "call_1" },
        },
        "missing_required_parameter",
        "item.output",
      ],
      [
        "response.create with both modalities",
        { type: "response.create", response: { output_modalities: ["text", "audio"] } },
        "invalid_value",
        "response.output_modalities",
      ],
      ["an unknown event type", { type: "conversation.item.add" }, "invalid_value", "type"],
    ];
    for (const [what, event, code, param] of cases) {
      it(`${code} at ${param} for ${what}`, async () => {
        const [client, call] = await open();
        const start = (await client.events()).length - 1;
        await client.send({ ...event, event_id: "evt_client_1" });
        const error = await client.next(ofType("error"), start);
        expect(error.error).to.deep.include({
          type: "invalid_request_error",
          code,
          param,
          event_id: "evt_client_1",
        });
        expect((error.error as { message: string }).message)
          .to.be.a("string")
          .with.length.above(0);
        expect(await client.typesSince(start)).to.deep.equal(["error"]);
        await expectRejection(call.nextTyped(50), /never came|no typed text/);
      });
    }
  });
});

async function expectRejection(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (thrown: Error) => thrown,
  );
  expect(error, "a rejection").to.be.instanceOf(Error);
  expect(error!.message).to.match(pattern);
}
