/**
 * The widget's whole sequence over real HTTP, as a visitor's browser walks it: config, token
 * (against a stand-in of OpenAI's client-secret endpoint), signed queries, usage events, a lead,
 * a transcript and the session's end. Every signature here is computed with Web Crypto, not with
 * the service's own code. Then each way a signed call is refused.
 */
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { CONFORMANCE_FIELDS } from "../core/host/testing/index.ts";
import type { BusEvent } from "../core/events/event-bus.ts";
import { startDrfServer, type DrfServer } from "./helpers/drf-server.ts";
import { startOpenAiStandin, type OpenAiStandin } from "./helpers/openai-standin.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { signBody } from "./helpers/widget-signature.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const ORIGIN = "https://nordichome.example";
const SITE = "nordic-widget";

/** The test site: Nordic Home on the DRF-style backend, with a collection that always fails. */
const nordicSite = (backend: DrfServer, extra: object = {}) => ({
  site_id: SITE,
  business_name: "Nordic Home",
  business_description: "Scandinavian furniture",
  domain: "nordichome.example",
  ...extra,
  adapter: {
    type: "rest",
    config: { baseUrl: `${backend.origin}/api`, queryMode: "querystring" },
    collections: {
      products: { source: "/products/", ...CONFORMANCE_FIELDS },
      broken: { source: "/status/500/", ...CONFORMANCE_FIELDS },
    },
  },
});

describe("the widget sequence over HTTP", function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  let backend: DrfServer;
  let openai: OpenAiStandin;
  let service: TestService;
  const bus: BusEvent[] = [];
  let session: { session_id: string; signing_secret: string };

  /** A signed POST as the widget sends it. */
  async function signed(path: string, payload: unknown, status: number) {
    const body = JSON.stringify(payload);
    return request(service.server)
      .post(`/v1/${SITE}${path}`)
      .set("Origin", ORIGIN)
      .set("Content-Type", "application/json")
      .set("X-Service-Session", session.session_id)
      .set("X-Service-Signature", await signBody(session.signing_secret, body))
      .send(body)
      .expect(status);
  }

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    backend = await startDrfServer();
    openai = await startOpenAiStandin();
    service = await startTestService(database.url, {
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
    });
    service.events.subscribe((event) => bus.push(event));
    const workspaceId = await service.workspace();
    await service.sites.create(
      operatorPrincipal(workspaceId, "test"),
      nordicSite(backend, {
        additional_domains: ["localhost:3000"],
        industry: "retail",
        timezone: "Europe/Copenhagen",
        voice: "sage",
        restricted_topics: ["competitor prices"],
        lead_capture: { enabled: true, fields: ["name", "email", "phone"] },
        transcript_retention_days: 30,
      }),
    );
  });
  after(async () => {
    await service?.stop();
    await openai?.close();
    await backend?.close();
    await database?.drop();
  });

  it("answers the config and CORS only to the site's origins", async () => {
    const preflight = await request(service.server)
      .options(`/v1/${SITE}/config`)
      .set("Origin", ORIGIN)
      .set("Access-Control-Request-Method", "GET")
      .expect(204);
    expect(preflight.headers["access-control-allow-origin"]).to.equal(ORIGIN);
    const config = await request(service.server)
      .get(`/v1/${SITE}/config`)
      .set("Origin", "http://localhost:3000")
      .expect(200);
    expect(config.headers["access-control-allow-origin"]).to.equal("http://localhost:3000");
    expect(config.headers.vary).to.match(/Origin/);
    expect(config.body.data).to.deep.equal({
      site_id: SITE,
      business_name: "Nordic Home",
      language: "en",
      voice: "sage",
      appearance: config.body.data.appearance,
      enabled_pages: config.body.data.enabled_pages,
      disabled_pages: config.body.data.disabled_pages,
      version: 1,
    });
    expect(JSON.stringify(config.body.data)).not.to.match(/adapter|baseUrl|competitor/);
  });

  it("mints a session with OpenAI's client secret, the prompt and the tools", async () => {
    const sent = openai.nextRequest();
    const res = await request(service.server)
      .post(`/v1/${SITE}/token`)
      .set("Origin", ORIGIN)
      .send({ page_url: `${ORIGIN}/sofas` })
      .expect(200);
    const data = res.body.data;
    session = data;
    expect(data.session_id).to.match(/^sess_[0-9a-z]{26}$/);
    expect(data.signing_secret).to.match(/^[0-9a-f]{64}$/);
    expect(data.ephemeral_token.value).to.match(/^ek_/);
    expect(Date.parse(data.ephemeral_token.expires_at)).to.be.greaterThan(Date.now());
    expect(data.provider).to.deep.equal({
      name: "openai",
      model: "gpt-realtime",
      voice: "sage",
      connect_url: `${openai.baseUrl}/v1/realtime/calls`,
    });
    const request_ = await sent;
    expect(request_.headers.authorization).to.equal(`Bearer ${openai.apiKey}`);
    const body = request_.body as {
      session: {
        instructions: string;
        tools: { name: string }[];
        audio: { output: { voice: string } };
      };
    };
    expect(body.session.instructions).to.include("Nordic Home");
    expect(body.session.instructions).to.include("competitor prices");
    expect(body.session.audio.output.voice).to.equal("sage");
    expect(body.session.tools.map((t) => t.name)).to.deep.equal([
      "search_database",
      "submit_lead",
      "scroll_to",
    ]);
    expect(request_.status).to.equal(200);
  });

  it("searches with a signed query and records a db_query event", async () => {
    const res = await signed(
      "/query",
      {
        collection: "products",
        filters: [{ field: "color", operator: "eq", value: "blue" }],
        sort_by: "price",
        limit: 2,
      },
      200,
    );
    expect(res.headers["access-control-allow-origin"]).to.equal(ORIGIN);
    expect(res.body.data).to.include({ success: true, total: 4, returned: 2 });
  });

  it("records usage events; a retried write with the same client id counts once", async () => {
    const event = {
      type: "function_call",
      function_name: "search_database",
      metadata: { client_event_id: "c-1" },
    };
    const first = await signed("/analytics/event", event, 202);
    const retry = await signed("/analytics/event", event, 202);
    expect(first.body.data.id).to.match(/^evt_/);
    expect(retry.body.data.id).to.equal(first.body.data.id);
    const bad = await signed("/analytics/event", { type: "db_query", function_name: "x" }, 400);
    expect(bad.body.error.code).to.equal("invalid_request");
  });

  it("captures a lead (lead.captured), and its token updates it (lead.updated)", async () => {
    const noContact = await signed("/leads", { name: "Ana" }, 400);
    expect(noContact.body.error.code).to.equal("invalid_request");
    const res = await signed(
      "/leads",
      {
        name: "Ana Silva",
        email: "ana@example.com",
        message: "Wants the Oslo sofa in blue",
      },
      201,
    );
    const leadId = res.body.data.lead_id as string;
    await service.events.flush();
    const captured = bus.find((e) => e.kind === "service" && e.event.type === "lead.captured");
    const token = (captured?.event as { data: Record<string, unknown> }).data.update_token;
    expect(token).to.match(/^lt_/);
    const updated = await request(service.server)
      .patch(`/v1/public/leads/${leadId}`)
      .set("Authorization", `Bearer ${token}`)
      .send({ status: "contacted", notes: "called back" })
      .expect(200);
    expect(updated.body.data).to.include({ id: leadId, status: "contacted", notes: "called back" });
    await request(service.server)
      .patch(`/v1/public/leads/${leadId}`)
      .set("Authorization", `Bearer lt_${"x".repeat(32)}`)
      .send({ status: "won" })
      .expect(401);
    expect(bus.some((e) => e.kind === "service" && e.event.type === "lead.updated")).to.equal(true);
    // The site owner's key updates it too, and lists it; a key without sites:write cannot.
    const workspaceId = (await service.sites.publicSite(SITE))!.workspaceId;
    const writer = await service.key(workspaceId, { scopes: ["sites:read", "sites:write"] });
    await request(service.server)
      .patch(`/v1/public/leads/${leadId}`)
      .set("Authorization", `Bearer ${writer}`)
      .send({ status: "qualified" })
      .expect(200);
    const reader = await service.key(workspaceId, { scopes: ["sites:read"] });
    await request(service.server)
      .patch(`/v1/public/leads/${leadId}`)
      .set("Authorization", `Bearer ${reader}`)
      .send({ status: "won" })
      .expect(403);
    await request(service.server)
      .patch(`/v1/public/leads/${leadId}`)
      .set("Authorization", `Bearer ${writer}`)
      .send({ status: "sold" })
      .expect(400);
    const listed = await request(service.server)
      .get(`/v1/leads?site_id=${SITE}&status=qualified`)
      .set("Authorization", `Bearer ${reader}`)
      .expect(200);
    expect(listed.body.data.map((l: { id: string }) => l.id)).to.deep.equal([leadId]);
    expect(listed.body.data[0]).to.include({ email: "ana@example.com", status: "qualified" });
  });

  it("keeps the transcript, then ends the session with its duration and conversation.ended", async () => {
    await signed(
      "/transcript",
      {
        turns: [
          { role: "visitor", text: "Do you have a blue sofa?", at: new Date().toISOString() },
          {
            role: "function",
            name: "search_database",
            arguments: { collection: "products" },
            at: new Date().toISOString(),
          },
        ],
      },
      202,
    );
    expect(await service.store.leads.transcriptsOf(SITE)).to.have.length(1);
    const end = await signed(
      "/analytics/event",
      {
        type: "session_end",
        metadata: { function_calls: 1 },
      },
      202,
    );
    await service.events.flush();
    const ended = bus.filter((e) => e.kind === "service" && e.event.type === "conversation.ended");
    expect(ended).to.have.length(1);
    const stored = await service.store.events.listUsage(SITE);
    expect(stored.map((e) => e.type)).to.deep.equal([
      "session_start",
      "db_query",
      "function_call",
      "session_end",
    ]);
    const last = stored.at(-1)!;
    expect(last.id).to.equal(end.body.data.id);
    expect(last.duration_seconds).to.be.a("number").and.at.least(0);
    // The session is over: its secret signs nothing any more.
    const after = await signed("/query", { collection: "products" }, 401);
    expect(after.body.error.code).to.equal("invalid_signature");
  });

  it("puts site.deleted on the bus when the site is deleted", async () => {
    const workspaceId = (await service.sites.publicSite(SITE))!.workspaceId;
    await service.sites.delete(operatorPrincipal(workspaceId, "test"), SITE);
    await service.events.flush();
    const deleted = bus.find((e) => e.kind === "service" && e.event.type === "site.deleted");
    expect(deleted?.event).to.include({ site_id: SITE, workspace_id: workspaceId });
    await request(service.server).get(`/v1/${SITE}/config`).set("Origin", ORIGIN).expect(404);
  });
});

describe("signed calls that are refused", function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  let backend: DrfServer;
  let openai: OpenAiStandin;
  let service: TestService;
  let session: { session_id: string; signing_secret: string };
  const body = JSON.stringify({ collection: "products" });
  const masterKey = Buffer.alloc(32, 7).toString("base64"); // shared by the instances below

  const post = (headers: Record<string, string | string[]>, payload = body, path = "/query") => {
    const req = request(service.server)
      .post(`/v1/${SITE}${path}`)
      .set("Content-Type", "application/json");
    for (const [name, value] of Object.entries(headers)) req.set(name, value as string);
    return req.send(payload);
  };

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    backend = await startDrfServer();
    openai = await startOpenAiStandin();
    service = await startTestService(database.url, {
      SITEVOICE_MASTER_KEY: masterKey,
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
    });
    const workspaceId = await service.workspace();
    await service.sites.create(operatorPrincipal(workspaceId, "test"), nordicSite(backend));
    session = (
      await request(service.server)
        .post(`/v1/${SITE}/token`)
        .set("Origin", ORIGIN)
        .send({})
        .expect(200)
    ).body.data;
  });
  after(async () => {
    await service?.stop();
    await openai?.close();
    await backend?.close();
    await database?.drop();
  });

  it("401 invalid_signature for a wrong signature, an unknown session and every malformed header", async () => {
    const good = await signBody(session.signing_secret, body);
    const hex = good.slice("sha256=".length);
    const cases: Record<string, Record<string, string | string[]>> = {
      "wrong secret": { "X-Service-Signature": await signBody("0".repeat(64), body) },
      "signature of another body": {
        "X-Service-Signature": await signBody(session.signing_secret, `${body} `),
      },
      "unknown session": { "X-Service-Session": "sess_01abcdefghjkmnpqrstvwxyz0" },
      "malformed session": { "X-Service-Session": "'; DROP TABLE widget_sessions; --" },
      empty: { "X-Service-Signature": "" },
      "sha1=": { "X-Service-Signature": `sha1=${hex.slice(0, 40)}` },
      "63 hex": { "X-Service-Signature": `sha256=${hex.slice(0, 63)}` },
      "65 hex": { "X-Service-Signature": `sha256=${hex}0` },
      "non-hex": { "X-Service-Signature": `sha256=${"g".repeat(64)}` },
      repeated: { "X-Service-Signature": [good, good] },
      "no signature": { "X-Service-Signature": undefined as unknown as string },
    };
    for (const [name, override] of Object.entries(cases)) {
      const headers = {
        Origin: ORIGIN,
        "X-Service-Session": session.session_id,
        "X-Service-Signature": good,
        ...override,
      };
      for (const key of Object.keys(headers))
        if (headers[key as keyof typeof headers] === undefined)
          delete headers[key as keyof typeof headers];
      const res = await post(headers);
      expect(res.status, name).to.equal(401);
      expect(res.body.error.code, name).to.equal("invalid_signature");
    }
    // The same headers with the right signature pass, so the cases above fail for their reason.
    await post({
      Origin: ORIGIN,
      "X-Service-Session": session.session_id,
      "X-Service-Signature": good,
    }).expect(200);
  });

  it("verifies a session on another instance, and 401 there once it is past its lifetime", async () => {
    const other = await startTestService(database!.url, {
      SITEVOICE_MASTER_KEY: masterKey,
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
    });
    try {
      const headers = {
        Origin: ORIGIN,
        "X-Service-Session": session.session_id,
        "X-Service-Signature": await signBody(session.signing_secret, body),
      };
      const onOther = (h: Record<string, string>) =>
        request(other.server)
          .post(`/v1/${SITE}/query`)
          .set("Content-Type", "application/json")
          .set(h)
          .send(body);
      await onOther(headers).expect(200);
      const threeHoursAgo = Date.now() - 3 * 60 * 60_000;
      await service.store.db
        .knex("widget_sessions")
        .where({ id: session.session_id })
        .update({ created_at: threeHoursAgo, last_seen_at: threeHoursAgo });
      // A fresh instance reads the session from the store: past its 2 hours, it is refused.
      const third = await startTestService(database!.url, { SITEVOICE_MASTER_KEY: masterKey });
      try {
        const res = await request(third.server)
          .post(`/v1/${SITE}/query`)
          .set("Content-Type", "application/json")
          .set(headers)
          .send(body)
          .expect(401);
        expect(res.body.error.code).to.equal("invalid_signature");
      } finally {
        await third.stop();
      }
    } finally {
      await other.stop();
    }
  });

  it("403 origin_not_allowed for a missing, null, look-alike, other-scheme or other-port Origin", async () => {
    const good = await signBody(session.signing_secret, body);
    for (const origin of [
      undefined,
      "null",
      "https://nordichome.example.evil.com",
      "https://evil-nordichome.example",
      "http://nordichome.example",
      "https://nordichome.example:8443",
    ]) {
      const headers: Record<string, string> = {
        "X-Service-Session": session.session_id,
        "X-Service-Signature": good,
      };
      if (origin !== undefined) headers.Origin = origin;
      const res = await post(headers);
      expect(res.status, String(origin)).to.equal(403);
      expect(res.body.error.code).to.equal("origin_not_allowed");
      expect(res.headers["access-control-allow-origin"]).to.equal(undefined);
    }
  });

  it("400, 422 validation_failed and 422 adapter_error on the signed path", async () => {
    const send = async (payload: unknown) => {
      const text = JSON.stringify(payload);
      return post(
        {
          Origin: ORIGIN,
          "X-Service-Session": session.session_id,
          "X-Service-Signature": await signBody(session.signing_secret, text),
        },
        text,
      );
    };
    const missingCollection = await send({ query: "sofa" });
    expect(missingCollection.status).to.equal(400);
    expect(missingCollection.body.error.code).to.equal("invalid_request");
    const unknownField = await send({ collection: "products", sort_by: "margin" });
    expect(unknownField.status).to.equal(422);
    expect(unknownField.body.error).to.include({ code: "validation_failed" });
    expect(unknownField.body.error.message).to.include('"margin"');
    const failing = await send({ collection: "broken" });
    expect(failing.status).to.equal(422);
    expect(failing.body.error.code).to.equal("adapter_error");
    expect(failing.body.error.details.error).to.match(/500/);
  });

  for (const [path, payload] of [
    ["/leads", { email: "ana@example.com", page_url: "javascript:alert(document.cookie)" }],
    ["/transcript", { turns: [], page_url: "javascript:alert(1)" }],
    ["/leads", { email: "ana@example.com", page_url: "data:text/html,<script>x</script>" }],
  ] as const) {
    it(`400 for a page_url that is not http(s) on ${path}: ${payload.page_url.slice(0, 11)}…`, async () => {
      const text = JSON.stringify(payload);
      const res = await post(
        {
          Origin: ORIGIN,
          "X-Service-Session": session.session_id,
          "X-Service-Signature": await signBody(session.signing_secret, text),
        },
        text,
        path,
      );
      expect(res.status).to.equal(400);
      expect(res.body.error.details.field).to.equal("page_url");
    });
  }

  it("400 for a token's page_url that is not http(s), and for a field a token request lacks", async () => {
    for (const body of [{ page_url: "javascript:alert(1)" }, { page: "https://x.example/" }]) {
      const res = await request(service.server)
        .post(`/v1/${SITE}/token`)
        .set("Origin", ORIGIN)
        .send(body)
        .expect(400);
      expect(res.body.error.details.field).to.match(/^page/);
    }
  });

  it("503 service_unavailable naming the cause when the provider has no key or fails", async () => {
    openai.behaviour = "fail";
    const failed = await request(service.server)
      .post(`/v1/${SITE}/token`)
      .set("Origin", ORIGIN)
      .send({})
      .expect(503);
    expect(failed.body.error.code).to.equal("service_unavailable");
    expect(failed.body.error.message).to.match(/voice provider failed/i);
    expect(failed.body.error.message).not.to.include(openai.apiKey);
    openai.behaviour = "mint";
  });
});
