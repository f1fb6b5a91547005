/**
 * The OpenAI client-secret stand-in the provider is tested against: it answers a well-formed
 * request as OpenAI does, and refuses what OpenAI refuses, in OpenAI's error shape.
 */
import { expect } from "chai";
import {
  CLIENT_SECRETS_PATH,
  startOpenAiStandin,
  validSecretRequest,
  type OpenAiStandin,
} from "../../test/helpers/openai-standin.ts";

describe("OpenAI client-secret stand-in", () => {
  let standin: OpenAiStandin;

  beforeEach(async () => {
    standin = await startOpenAiStandin();
  });

  afterEach(() => standin.close());

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${standin.baseUrl}${CLIENT_SECRETS_PATH}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${standin.apiKey}`,
        "content-type": "application/json",
        ...headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return {
      status: response.status,
      body: (await response.json()) as { error: Record<string, unknown> },
    };
  };

  const valid = validSecretRequest;

  it("answers a well-formed request with a client secret and the effective session", async () => {
    const { status, body } = await post(valid());
    expect(status).to.equal(200);
    expect(body).to.include.keys("value", "expires_at", "session");
    expect(body).to.have.nested.property("session.audio.output.voice", "marin");
  });

  describe("refuses what OpenAI refuses, in OpenAI's error shape", () => {
    const beta = valid() as { session: Record<string, unknown> };
    beta.session.voice = "alloy";
    const noInstructions = valid() as { session: Record<string, unknown> };
    noInstructions.session.instructions = "";
    const longLived = valid();
    longLived.expires_after.seconds = 86_400;
    const badTool = valid() as { session: { tools: Record<string, unknown>[] } };
    badTool.session.tools[0]!.parameters = { type: "object", properties: { x: { type: 5 } } };
    const cases: [string, unknown, Record<string, string>, number, string | null][] = [
      [
        "a wrong key",
        valid(),
        { authorization: "Bearer sk-nope-0123456789" },
        401,
        "invalid_api_key",
      ],
      ["a body sent as text/plain", valid(), { "content-type": "text/plain" }, 400, null],
      ["a body that is not JSON", "{not json", {}, 400, null],
      ["the beta session shape (session.voice)", beta, {}, 400, "unknown_parameter"],
      ["empty instructions", noInstructions, {}, 400, "empty_string"],
      ["a secret that lives too long", longLived, {}, 400, "integer_above_max_value"],
      ["a tool whose parameters are not a schema", badTool, {}, 400, "invalid_function_parameters"],
    ];
    for (const [what, body, headers, status, code] of cases) {
      it(`${status} ${code ?? "(no code)"} for ${what}`, async () => {
        const answer = await post(body, headers);
        expect(answer.status, JSON.stringify(body)).to.equal(status);
        expect(Object.keys(answer.body.error).sort()).to.deep.equal([
          "code",
          "message",
          "param",
          "type",
        ]);
        expect(answer.body.error.code).to.equal(code);
        // The stand-in records the request with the status it answered.
        expect(standin.requests.map((r) => r.status)).to.deep.equal([status]);
      });
    }
  });
});
