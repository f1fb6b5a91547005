/**
 * `POST /v1/:siteId/session/resume`: a new provider token for a widget session that goes on
 * (a refresh, another page of the site, a lost connection), signed by that session. The session
 * keeps its id, secret and end; what a token call refuses, this refuses too, and an ended,
 * unsigned or foreign session gets nothing.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { startOpenAiStandin, type OpenAiStandin } from "./helpers/openai-standin.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { signedPost as post, type WidgetSession } from "./helpers/widget-session.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

describe("resuming a widget session", function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  let openai: OpenAiStandin;
  let service: TestService;
  let session: WidgetSession & { session_expires_at: string };
  let visitorIp: string;
  let visitors = 0;

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    openai = await startOpenAiStandin();
    service = await startTestService(database.url, {
      SITEVOICE_JOBS: "off",
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
      // Each test's visitor has an address of its own, so the per-IP limit is counted per test.
      TRUSTED_PROXIES: "loopback",
    });
  });
  after(async () => {
    await service?.stop();
    await openai?.close();
    await database?.drop();
  });

  /**
   * A new site in a workspace of its own (lead capture on), and a session minted by the token
   * endpoint in `mode`.
   */
  async function siteWithSession(mode = "voice"): Promise<typeof session> {
    // An address of its own per test (a random one was shared by two tests now and then, whose
    // token calls then counted against one limit).
    visitorIp = `198.51.100.${(visitors += 1)}`;
    openai.behaviour = "mint";
    const workspaceId = await service.workspace();
    const siteId = `resume-${crypto.randomBytes(4).toString("hex")}`;
    const origin = `https://${siteId}.example`;
    await service.sites.create(operatorPrincipal(workspaceId, "test"), {
      site_id: siteId,
      business_name: "Resume Cafe",
      business_description: "",
      domain: `${siteId}.example`,
      lead_capture: { enabled: true, fields: ["name", "email"] },
    });
    const token = await request(service.server)
      .post(`/v1/${siteId}/token`)
      .set("Origin", origin)
      .set("X-Forwarded-For", visitorIp)
      .send({ page_url: `${origin}/`, mode })
      .expect(200);
    return { siteId, workspaceId, origin, ...token.body.data };
  }

  /** The session OpenAI was last asked to mint. */
  const mintedSession = () =>
    (openai.requests.at(-1)!.body as { session: Record<string, unknown> }).session;

  /** A signed POST from this test's visitor. */
  const signedPost = (...args: Parameters<typeof post>) =>
    post(args[0], args[1], args[2], args[3], { "X-Forwarded-For": visitorIp });

  beforeEach(async () => {
    session = await siteWithSession();
  });

  it("mints a new provider token for the same session, ending when it ends", async () => {
    const minted = openai.requests.length;
    const res = await signedPost(service, session, "/session/resume", {
      page_url: `${session.origin}/menu`,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.headers["access-control-allow-origin"]).to.equal(session.origin);
    const data = res.body.data;
    expect(Object.keys(data).sort()).to.deep.equal([
      "ephemeral_token",
      "mode",
      "provider",
      "session_expires_at",
      "session_id",
    ]);
    expect(data.session_id).to.equal(session.session_id);
    expect(data.session_expires_at).to.equal(session.session_expires_at);
    expect(openai.requests.length).to.equal(minted + 1);
    const answer = openai.requests.at(-1)!.answer as { value: string };
    expect(data.ephemeral_token.value).to.equal(answer.value);
    expect(data.provider.connect_url).to.equal(`${openai.baseUrl}/v1/realtime/calls`);
    // The secret still signs the session's calls.
    const event = await signedPost(service, session, "/analytics/event", {
      type: "function_call",
      function_name: "scroll_to",
    });
    expect(event.status).to.equal(202);
  });

  it("answers a voice session when no mode is given", async () => {
    const res = await signedPost(service, session, "/session/resume", {});
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.mode).to.equal("voice");
    expect(mintedSession().output_modalities).to.equal(undefined);
  });

  it("resumes a text conversation as a text session", async () => {
    const text = await siteWithSession("text");
    const res = await signedPost(service, text, "/session/resume", { mode: "text" });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.mode).to.equal("text");
    expect(mintedSession().output_modalities).to.deep.equal(["text"]);
  });

  it("switches a text conversation to voice, its visitor transcribed", async () => {
    const text = await siteWithSession("text");
    const res = await signedPost(service, text, "/session/resume", { mode: "voice" });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.mode).to.equal("voice");
    const audio = mintedSession().audio as { input?: { transcription?: unknown } };
    expect(audio.input?.transcription).to.deep.equal({
      model: "gpt-4o-mini-transcribe",
      language: "en",
    });
  });

  it("gives a callback session a text conversation", async () => {
    const callback = await siteWithSession("callback");
    const res = await signedPost(service, callback, "/session/resume", { mode: "text" });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.ephemeral_token.value).to.match(/^ek_/);
    expect(mintedSession().output_modalities).to.deep.equal(["text"]);
  });

  it("refuses to resume in callback mode, naming the field", async () => {
    const res = await signedPost(service, session, "/session/resume", { mode: "callback" });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal("invalid_request");
    expect(res.body.error.details.field).to.equal("mode");
  });

  it("refuses a call without the session's signature, or from another origin", async () => {
    const body = JSON.stringify({});
    const unsigned = await request(service.server)
      .post(`/v1/${session.siteId}/session/resume`)
      .set("Origin", session.origin)
      .set("Content-Type", "application/json")
      .set("X-Service-Session", session.session_id)
      .send(body)
      .expect(401);
    expect(unsigned.body.error.code).to.equal("invalid_signature");
    const wrong = await signedPost(
      service,
      { ...session, signing_secret: "0".repeat(64) },
      "/session/resume",
      {},
    );
    expect(wrong.status).to.equal(401);
    expect(wrong.body.error.code).to.equal("invalid_signature");
    const foreign = await signedPost(
      service,
      { ...session, origin: "https://evil.example" },
      "/session/resume",
      {},
    );
    expect(foreign.status).to.equal(403);
    expect(foreign.body.error.code).to.equal("origin_not_allowed");
  });

  it("refuses another site's session, and an unknown site", async () => {
    const other = await siteWithSession();
    const crossed = await signedPost(
      service,
      { ...other, siteId: session.siteId, origin: session.origin },
      "/session/resume",
      {},
    );
    expect(crossed.status).to.equal(401);
    expect(crossed.body.error.code).to.equal("invalid_signature");
    const unknown = await signedPost(
      service,
      { ...session, siteId: "no-such-site-here" },
      "/session/resume",
      {},
    );
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error.code).to.equal("site_not_found");
  });

  it("refuses a session that ended", async () => {
    const end = await signedPost(service, session, "/analytics/event", { type: "session_end" });
    expect(end.status).to.equal(202);
    const res = await signedPost(service, session, "/session/resume", {});
    expect(res.status).to.equal(401);
    expect(res.body.error.code).to.equal("invalid_signature");
  });

  it("refuses a body that is not {page_url?, mode?}, naming the field", async () => {
    const extra = await signedPost(service, session, "/session/resume", { resume: true });
    expect(extra.status).to.equal(400);
    expect(extra.body.error.code).to.equal("invalid_request");
    const url = await signedPost(service, session, "/session/resume", { page_url: "not a url" });
    expect(url.status).to.equal(400);
    expect(url.body.error.details.field).to.equal("page_url");
  });

  it("answers 503 when the provider fails, and the session goes on", async () => {
    openai.behaviour = "fail";
    const res = await signedPost(service, session, "/session/resume", {});
    expect(res.status).to.equal(503);
    expect(res.body.error.code).to.equal("service_unavailable");
    openai.behaviour = "mint";
    const again = await signedPost(service, session, "/session/resume", {});
    expect(again.status).to.equal(200);
  });

  it("counts against the token's limits: ten a minute from one address", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      statuses.push(
        (
          await signedPost(service, session, "/session/resume", {
            page_url: `${session.origin}/${i}`,
          })
        ).status,
      );
    }
    // The token call that opened the session took one of the IP's ten a minute.
    expect(statuses.filter((s) => s === 200)).to.have.length(9);
    expect(statuses.slice(9)).to.deep.equal([429, 429, 429]);
    const limited = await signedPost(service, session, "/session/resume", {
      page_url: `${session.origin}/x`,
    });
    expect(limited.status).to.equal(429);
    expect(limited.body.error.code).to.equal("rate_limited");
    expect(Number(limited.headers["retry-after"])).to.be.within(1, 60);
  });
});
