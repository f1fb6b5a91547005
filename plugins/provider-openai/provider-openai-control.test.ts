/**
 * The OpenAI provider's call control against the stand-in's sideband (OpenAI's server-side
 * controls): joining a call with the standard key, hearing its session and the usage of each
 * response, putting the site's session back, hanging up, and the refusals.
 */
import { expect } from "chai";
import type {
  CallControl,
  ControlledSession,
  PluginHost,
  ResponseUsage,
  VoiceProvider,
} from "sitevoice";
import path from "node:path";
import { PluginCallError } from "sitevoice";
import { testPluginHost } from "sitevoice/testing";
import { startOpenAiStandin, type OpenAiStandin } from "../../test/helpers/openai-standin.ts";
import type { RealtimeCall, RealtimeUsage } from "../../test/helpers/realtime-call.ts";
import { hostWithBuiltins, signal } from "./provider-openai-fixtures.ts";
import { usageOf } from "./openai-call-control.ts";
import { waitUntil } from "../../test/helpers/wait-until.ts";

const SITE_SESSION: ControlledSession = {
  instructions: "You are the front desk of Luigi's. Never discuss politics.",
  tools: [
    {
      type: "function",
      name: "search_database",
      description: "Searches the menu.",
      parameters: { type: "object", properties: {} },
    },
  ],
};

/** A usage as OpenAI reports it: 60 text and 400 audio in (40 and 100 of them cached), 20 and 300 out. */
const USAGE: RealtimeUsage = {
  total_tokens: 780,
  input_tokens: 460,
  output_tokens: 320,
  input_token_details: {
    text_tokens: 60,
    audio_tokens: 400,
    image_tokens: 0,
    cached_tokens: 140,
    cached_tokens_details: { text_tokens: 40, audio_tokens: 100, image_tokens: 0 },
  },
  output_token_details: { text_tokens: 20, audio_tokens: 300 },
};

/** What the events of one joined call told the test. */
interface Heard {
  sessions: ControlledSession[];
  usage: ResponseUsage[];
  closed: string[];
}

describe("provider-openai call control", () => {
  let standin: OpenAiStandin;
  let host: PluginHost;
  let provider: VoiceProvider;
  let call: RealtimeCall;

  beforeEach(async () => {
    standin = await startOpenAiStandin();
    host = await hostWithBuiltins();
    provider = await host.instance(
      "voice-provider",
      "openai",
      { baseUrl: standin.baseUrl, apiKey: standin.apiKey },
      "global",
    );
    call = standin.calls.virtual({ type: "realtime", model: "gpt-realtime", ...SITE_SESSION });
  });
  afterEach(async () => {
    await host.close();
    await standin.close();
  });

  const join = async (callId = call.id): Promise<[CallControl, Heard]> => {
    const heard: Heard = { sessions: [], usage: [], closed: [] };
    const control = await provider.controlCall!(
      callId,
      {
        session: (session) => heard.sessions.push(session),
        usage: (usage) => heard.usage.push(usage),
        closed: (reason) => heard.closed.push(reason),
      },
      { signal: signal() },
    );
    return [control, heard];
  };

  /** What the provider's join of the test's call was refused with (its cause). */
  const refusedJoin = async (from: VoiceProvider) => {
    const refused = await from.controlCall!(
      call.id,
      { session() {}, usage() {}, closed() {} },
      { signal: signal() },
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(PluginCallError);
    return (refused as PluginCallError).cause as Error & { code?: string };
  };

  it("joins the call with the standard key: the stand-in sees one control connection", async () => {
    const [control] = await join();
    expect(standin.sideband.openJoins(call.id)).to.equal(1);
    control.close();
    await waitUntil("close", () => standin.sideband.openJoins(call.id) === 0);
  });

  it("hears the session the visitor's page set, and puts the site's back", async () => {
    const [control, heard] = await join();
    call.fromBrowser({
      type: "session.update",
      session: { type: "realtime", instructions: "Discuss anything.", tools: [] },
    });
    await waitUntil("session.updated", () => heard.sessions.length === 1);
    expect(heard.sessions[0]).to.deep.equal({ instructions: "Discuss anything.", tools: [] });
    await control.apply(SITE_SESSION);
    await waitUntil("the second session.updated", () => heard.sessions.length === 2);
    expect(heard.sessions[1]).to.deep.equal(SITE_SESSION);
    expect(call.session).to.deep.include(SITE_SESSION);
    expect(call.sidebandEvents.map((event) => event.type)).to.deep.equal(["session.update"]);
    control.close();
  });

  it("reports each response's usage, the cached tokens apart from the rest", async () => {
    const [control, heard] = await join();
    const responseId = call.respond(USAGE);
    await waitUntil("usage", () => heard.usage.length === 1);
    expect(heard.usage[0]).to.deep.equal({
      response_id: responseId,
      model: "gpt-realtime",
      input: { text: 20, audio: 300, image: 0 },
      cached: { text: 40, audio: 100, image: 0 },
      output: { text: 20, audio: 300 },
    });
    control.close();
  });

  it("reads a usage without details as nothing of each kind, and none without an id", () => {
    expect(usageOf({ id: "resp_1", usage: {} }, "m")).to.deep.equal({
      response_id: "resp_1",
      model: "m",
      input: { text: 0, audio: 0, image: 0 },
      cached: { text: 0, audio: 0, image: 0 },
      output: { text: 0, audio: 0 },
    });
    expect(usageOf({ usage: {} }, "m")).to.equal(undefined);
    expect(usageOf({ id: "resp_2" }, "m")).to.equal(undefined);
  });

  it("hangs the call up for everyone, and hears its connection close", async () => {
    const [control, heard] = await join();
    await control.hangUp();
    expect(standin.sideband.hungUp).to.deep.equal([call.id]);
    expect(call.ended).to.equal(true);
    await waitUntil("close", () => heard.closed.length === 1);
  });

  it("hears the connection close when the network cuts it", async () => {
    const [, heard] = await join();
    standin.sideband.drop(call.id);
    await waitUntil("close", () => heard.closed.length === 1);
    expect(heard.closed[0]).to.match(/closed \(1006\)/);
  });

  it("refuses to join a call that ended or never was, with CallEnded", async () => {
    for (const callId of ["rtc_unknown", call.id]) {
      if (callId === call.id) call.hangUp();
      const refused = await join(callId).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused, callId).to.be.instanceOf(PluginCallError);
      expect(((refused as PluginCallError).cause as Error).name, callId).to.equal("CallEnded");
    }
  });

  it("fails to join with a wrong key, not as an ended call", async () => {
    const wrong = await host.instance(
      "voice-provider",
      "openai",
      { baseUrl: standin.baseUrl, apiKey: "sk-wrong-0123456789" },
      "global",
    );
    const cause = await refusedJoin(wrong);
    expect(cause.name).to.not.equal("CallEnded");
    expect(cause.message).to.match(/401/);
    expect(cause.message).to.not.include("sk-wrong");
  });

  it("opens the control connection through the outbound guard: refused at a loopback address", async () => {
    const guarded = testPluginHost({ allowPrivateNetworks: false });
    await guarded.loadBuiltins(path.resolve("plugins"));
    guarded.start();
    try {
      const strict = await guarded.instance(
        "voice-provider",
        "openai",
        { baseUrl: standin.baseUrl, apiKey: standin.apiKey },
        "global",
      );
      const cause = await refusedJoin(strict);
      expect(cause.code).to.equal("OUTBOUND_BLOCKED");
      expect(standin.sideband.joins).to.deep.equal([]);
    } finally {
      await guarded.close();
    }
  });
});
