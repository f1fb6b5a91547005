/**
 * `POST /v1/:siteId/token` with a `mode`: a voice session (the default) whose visitor is
 * transcribed, a text session that answers in text, and a callback session with no provider
 * session at all, which signs the "Talk to a person" form's lead and works without a voice
 * provider. Each records its mode on `session_start`; the widget's `session_end` carries it too.
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
import { signedPost } from "./helpers/widget-session.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

/** The personality prompt's line for a text session. */
const TYPED_LINE = "The visitor is typing: your answers are read, not heard.";

/** A site on `service` in a workspace of its own; lead capture on unless `leads` is false. */
async function newSite(service: TestService, leads = true) {
  const workspaceId = await service.workspace();
  const siteId = `modes-${crypto.randomBytes(4).toString("hex")}`;
  await service.sites.create(operatorPrincipal(workspaceId, "test"), {
    site_id: siteId,
    business_name: "Modes Bakery",
    business_description: "",
    domain: `${siteId}.example`,
    language: "de-DE",
    lead_capture: { enabled: leads, fields: ["name", "email"] },
  });
  return { siteId, workspaceId, origin: `https://${siteId}.example` };
}

type Site = Awaited<ReturnType<typeof newSite>>;

let visitors = 0;

/**
 * POST /token from the site's origin with `body`, from an address of its own (behind the trusted
 * loopback proxy), so no test counts against another's per-IP limit.
 */
const token = (service: TestService, site: Site, body: object) =>
  request(service.server)
    .post(`/v1/${site.siteId}/token`)
    .set("Origin", site.origin)
    .set("X-Forwarded-For", `198.51.100.${(visitors += 1)}`)
    .send(body);

describe("the token's modes", function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  let openai: OpenAiStandin;
  let service: TestService;
  let site: Site;

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    openai = await startOpenAiStandin();
    service = await startTestService(database.url, {
      SITEVOICE_JOBS: "off",
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
      TRUSTED_PROXIES: "loopback",
    });
  });
  beforeEach(async () => {
    site = await newSite(service);
  });
  after(async () => {
    await service?.stop();
    await openai?.close();
    await database?.drop();
  });

  /** The mode session_start recorded for the site's only session. */
  async function startedMode(): Promise<unknown> {
    await service.events.flush();
    const events = await service.store.events.listUsage(site.siteId);
    const starts = events.filter((e) => e.type === "session_start");
    expect(starts).to.have.length(1);
    return (JSON.parse(starts[0]!.metadata!) as { mode?: unknown }).mode;
  }

  /** The session OpenAI was last asked to mint. */
  const minted = () =>
    (openai.requests.at(-1)!.body as { session: Record<string, unknown> }).session;

  it("answers a voice session when no mode is given, its visitor transcribed", async () => {
    const res = await token(service, site, {});
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.mode).to.equal("voice");
    expect(res.body.data.ephemeral_token.value).to.match(/^ek_/);
    expect(minted().audio).to.deep.equal({
      input: { transcription: { model: "gpt-4o-mini-transcribe", language: "de" } },
      output: { voice: "alloy" },
    });
  });

  it("records session_start of a voice session with metadata.mode voice", async () => {
    await token(service, site, { mode: "voice" }).expect(200);
    expect(await startedMode()).to.equal("voice");
  });

  it("leaves the typing line out of a voice session's prompt", async () => {
    await token(service, site, {}).expect(200);
    expect(minted().instructions).to.not.include(TYPED_LINE);
  });

  it("answers a text session minted for text output only", async () => {
    const res = await token(service, site, { mode: "text" });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.mode).to.equal("text");
    expect(res.body.data.ephemeral_token.value).to.match(/^ek_/);
    expect(minted().output_modalities).to.deep.equal(["text"]);
    expect(minted().audio).to.deep.equal({ output: { voice: "alloy" } });
  });

  it("records session_start of a text session with metadata.mode text", async () => {
    await token(service, site, { mode: "text" }).expect(200);
    expect(await startedMode()).to.equal("text");
  });

  it("tells a text session's prompt that the visitor types and reads", async () => {
    await token(service, site, { mode: "text" }).expect(200);
    expect(minted().instructions).to.include(TYPED_LINE);
  });

  it("answers a callback session without a provider session, asking OpenAI nothing", async () => {
    const before = openai.requests.length;
    const res = await token(service, site, { mode: "callback" });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(Object.keys(res.body.data).sort()).to.deep.equal([
      "mode",
      "session_expires_at",
      "session_id",
      "signing_secret",
      "user_fingerprint",
    ]);
    expect(res.body.data.mode).to.equal("callback");
    expect(openai.requests.length).to.equal(before);
  });

  it("records session_start of a callback session with metadata.mode callback", async () => {
    await token(service, site, { mode: "callback" }).expect(200);
    expect(await startedMode()).to.equal("callback");
  });

  it("lets a callback session sign the form's lead", async () => {
    const res = await token(service, site, { mode: "callback" }).expect(200);
    const lead = await signedPost(service, { ...site, ...res.body.data }, "/leads", {
      name: "Ada",
      email: "ada@example.com",
      source: "callback",
      reason: "Wants to order a wedding cake",
    });
    expect(lead.status, JSON.stringify(lead.body)).to.equal(201);
  });

  it("keeps the mode the widget's session_end carries", async () => {
    const res = await token(service, site, { mode: "text" }).expect(200);
    const end = await signedPost(service, { ...site, ...res.body.data }, "/analytics/event", {
      type: "session_end",
      metadata: { mode: "text" },
    });
    expect(end.status, JSON.stringify(end.body)).to.equal(202);
    await service.events.flush();
    const events = await service.store.events.listUsage(site.siteId);
    const ended = events.find((e) => e.type === "session_end");
    expect(JSON.parse(ended!.metadata!)).to.include({ mode: "text" });
  });

  it("refuses a callback session when the site's lead capture is off", async () => {
    const closed = await newSite(service, false);
    const res = await token(service, closed, { mode: "callback" });
    expect(res.status).to.equal(422);
    expect(res.body.success).to.equal(false);
    expect(res.body.error.code).to.equal("validation_failed");
    expect(res.body.error.details.field).to.equal("mode");
  });

  it("refuses an unknown mode with 400 naming the field", async () => {
    const res = await token(service, site, { mode: "video" });
    expect(res.status).to.equal(400);
    expect(res.body.success).to.equal(false);
    expect(res.body.error.code).to.equal("invalid_request");
    expect(res.body.error.details.field).to.equal("mode");
  });
});

describe("a callback session without a voice provider", function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  let service: TestService;

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    // No OPENAI_API_KEY: every voice or text session is refused.
    service = await startTestService(database.url, {
      SITEVOICE_JOBS: "off",
      TRUSTED_PROXIES: "loopback",
    });
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("is answered while a voice session is refused", async () => {
    const site = await newSite(service);
    await token(service, site, {}).expect(503);
    const res = await token(service, site, { mode: "callback" });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.mode).to.equal("callback");
    expect(res.body.data.signing_secret).to.match(/^[0-9a-f]{64}$/);
  });
});
