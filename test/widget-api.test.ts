/**
 * The widget's whole sequence over real HTTP, as a visitor's browser walks it: config, token
 * (against a stand-in of OpenAI's client-secret endpoint), signed queries, usage events, a lead,
 * a transcript and the session's end. Every signature here is computed with Web Crypto, not with
 * the service's own code. Then each way a signed call is refused.
 *
 * Each test builds what it needs in hooks (a fresh site in a workspace of its own, a fresh
 * session), so any one of them runs alone with --grep.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request, { type Response } from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { CONFORMANCE_FIELDS } from "../core/host/testing/index.ts";
import type { BusEvent, ServiceEvent } from "../core/events/event-bus.ts";
import { startDrfServer, type DrfServer } from "./helpers/drf-server.ts";
import { startOpenAiStandin, type OpenAiStandin } from "./helpers/openai-standin.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { newSession } from "./helpers/widget-session.ts";
import { signBody } from "./helpers/widget-signature.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const ORIGIN = "https://nordichome.example";
const SITE = "nordic-widget";

/** The test site: Nordic Home on the DRF-style backend, with a collection that always fails. */
const nordicSite = (backend: DrfServer, siteId: string, extra: object = {}) => ({
  site_id: siteId,
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
  /** This test's site (a new one for every test) and its workspace. */
  let site: string;
  let workspaceId: string;

  /** The service events of this test's site of one type, as the bus delivered them. */
  const onBus = (type: string): ServiceEvent[] =>
    bus.flatMap((e) =>
      e.kind === "service" && e.event.type === type && e.event.site_id === site ? [e.event] : [],
    );

  /** POST /token as the widget does: a session (and its session_start usage event). */
  async function mint(): Promise<{ session_id: string; signing_secret: string }> {
    const res = await request(service.server)
      .post(`/v1/${site}/token`)
      .set("Origin", ORIGIN)
      .send({ page_url: `${ORIGIN}/sofas` })
      .expect(200);
    return res.body.data;
  }

  /** A signed POST as the widget sends it, on `session`. */
  async function signedWith(
    session: { session_id: string; signing_secret: string },
    path: string,
    payload: unknown,
    status: number,
  ) {
    const body = JSON.stringify(payload);
    return request(service.server)
      .post(`/v1/${site}${path}`)
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
  });
  beforeEach(async () => {
    await service.events.flush();
    bus.length = 0;
    workspaceId = await service.workspace();
    site = `${SITE}-${crypto.randomBytes(4).toString("hex")}`;
    await service.sites.create(
      operatorPrincipal(workspaceId, "test"),
      nordicSite(backend, site, {
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

  it("answers a preflight from the site's domain with CORS for its origin", async () => {
    const preflight = await request(service.server)
      .options(`/v1/${site}/config`)
      .set("Origin", ORIGIN)
      .set("Access-Control-Request-Method", "GET")
      .expect(204);
    expect(preflight.headers["access-control-allow-origin"]).to.equal(ORIGIN);
  });

  it("answers the config to an additional domain with CORS and Vary: Origin, and no adapter or restricted topic", async () => {
    const config = await request(service.server)
      .get(`/v1/${site}/config`)
      .set("Origin", "http://localhost:3000")
      .expect(200);
    expect(config.headers["access-control-allow-origin"]).to.equal("http://localhost:3000");
    expect(config.headers.vary).to.match(/Origin/);
    expect(config.body.data).to.deep.equal({
      site_id: site,
      business_name: "Nordic Home",
      language: "en",
      voice: "sage",
      appearance: config.body.data.appearance,
      strings: {},
      enabled_pages: config.body.data.enabled_pages,
      disabled_pages: config.body.data.disabled_pages,
      // Lead capture is on: the panel offers "Talk to a person".
      callback: true,
      version: 1,
    });
    expect(JSON.stringify(config.body.data)).not.to.match(/adapter|baseUrl|competitor/);
  });

  it("answers a German site's config with its German strings, its own overrides winning, and them only once", async () => {
    await service.sites.patch(operatorPrincipal(workspaceId, "test"), site, {
      language: "de",
      appearance: { strings: { start: "Los geht's" } },
    });
    const config = await request(service.server)
      .get(`/v1/${site}/config`)
      .set("Origin", ORIGIN)
      .expect(200);
    expect(config.body.data.language).to.equal("de");
    expect(config.body.data.strings).to.include({ start: "Los geht's", not_now: "Nicht jetzt" });
    expect(config.body.data.appearance).to.have.keys("color", "position", "size");
  });

  it("403 origin_not_allowed for the config and its preflight from another origin, only the config's refusal readable", async () => {
    const preflight = await request(service.server)
      .options(`/v1/${site}/config`)
      .set("Origin", "https://evil.example")
      .set("Access-Control-Request-Method", "GET")
      .expect(403);
    expect(preflight.headers["access-control-allow-origin"]).to.equal(undefined);
    const config = await request(service.server)
      .get(`/v1/${site}/config`)
      .set("Origin", "https://evil.example")
      .expect(403);
    expect(config.body.error.code).to.equal("origin_not_allowed");
    // So the widget can tell the site's owner why it stays hidden (widget-origin.test.ts).
    expect(config.headers["access-control-allow-origin"]).to.equal("https://evil.example");
    expect(config.body.data).to.equal(undefined);
  });

  it("mints a session with OpenAI's client secret, the prompt and the tools", async () => {
    const sent = openai.nextRequest();
    const res = await request(service.server)
      .post(`/v1/${site}/token`)
      .set("Origin", ORIGIN)
      .send({ page_url: `${ORIGIN}/sofas` })
      .expect(200);
    const data = res.body.data;
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
      "request_callback",
      "scroll_to",
    ]);
    expect(request_.status).to.equal(200);
  });

  it("puts site.deleted on the bus when the site is deleted, and its config is 404 after", async () => {
    await service.sites.delete(operatorPrincipal(workspaceId, "test"), site);
    await service.events.flush();
    const [deleted] = onBus("site.deleted");
    expect(deleted).to.include({ site_id: site, workspace_id: workspaceId });
    await request(service.server).get(`/v1/${site}/config`).set("Origin", ORIGIN).expect(404);
  });

  describe("with an open session", () => {
    let session: { session_id: string; signing_secret: string };
    const signed = (path: string, payload: unknown, status: number) =>
      signedWith(session, path, payload, status);

    // A session as /token opens it, without its provider call (and /token's 10 a minute per IP).
    beforeEach(async () => {
      session = await newSession(service, { siteId: site, workspaceId, origin: ORIGIN });
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
      await service.events.flush();
      const stored = await service.store.events.listUsage(site);
      expect(stored.map((e) => e.type)).to.deep.equal(["db_query"]);
    });

    it("records a usage event; a retried write with the same client id counts once", async () => {
      const event = {
        type: "function_call",
        function_name: "search_database",
        metadata: { client_event_id: "c-1" },
      };
      const first = await signed("/analytics/event", event, 202);
      const retry = await signed("/analytics/event", event, 202);
      expect(first.body.data.id).to.match(/^evt_/);
      expect(retry.body.data.id).to.equal(first.body.data.id);
      const stored = await service.store.events.listUsage(site);
      expect(stored.filter((e) => e.type === "function_call")).to.have.length(1);
    });

    it("400 invalid_request for a usage event with a function_name that is not a function_call", async () => {
      const bad = await signed("/analytics/event", { type: "db_query", function_name: "x" }, 400);
      expect(bad.body.error.code).to.equal("invalid_request");
    });

    it("keeps the transcript", async () => {
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
      expect(await service.store.leads.transcriptsOf(site)).to.have.length(1);
    });

    it("400 invalid_request for a lead with neither email nor phone", async () => {
      const noContact = await signed("/leads", { name: "Ana" }, 400);
      expect(noContact.body.error.code).to.equal("invalid_request");
    });

    it("captures a lead, and lead.captured on the bus carries its update token", async () => {
      const res = await signed(
        "/leads",
        { name: "Ana Silva", email: "ana@example.com", message: "Wants the Oslo sofa in blue" },
        201,
      );
      await service.events.flush();
      const [captured] = onBus("lead.captured");
      expect(captured?.data.lead).to.include({ id: res.body.data.lead_id });
      expect(captured?.data.update_token).to.match(/^lt_/);
    });

    describe("and a captured lead", () => {
      let leadId: string;
      let token: string;
      const patch = (auth: string, changes: object) =>
        request(service.server)
          .patch(`/v1/public/leads/${leadId}`)
          .set("Authorization", `Bearer ${auth}`)
          .send(changes);

      beforeEach(async () => {
        const res = await signed(
          "/leads",
          { name: "Ana Silva", email: "ana@example.com", message: "Wants the Oslo sofa in blue" },
          201,
        );
        leadId = res.body.data.lead_id as string;
        await service.events.flush();
        token = onBus("lead.captured")[0]!.data.update_token as string;
      });

      it("its update token updates it (lead.updated)", async () => {
        const updated = await patch(token, { status: "contacted", notes: "called back" }).expect(
          200,
        );
        expect(updated.body.data).to.include({
          id: leadId,
          status: "contacted",
          notes: "called back",
        });
        await service.events.flush();
        expect(onBus("lead.updated")).to.have.length(1);
      });

      it("401 for an update token that is not the lead's", async () => {
        await patch(`lt_${"x".repeat(32)}`, { status: "won" }).expect(401);
      });

      it("a key of the site's workspace with sites:write updates it", async () => {
        const writer = await service.key(workspaceId, { scopes: ["sites:read", "sites:write"] });
        await patch(writer, { status: "qualified" }).expect(200);
      });

      it("404 for a key of the site's workspace limited to other sites", async () => {
        const another = await service.sites.create(operatorPrincipal(workspaceId, "test"), {
          business_name: "Another",
          business_description: "",
          domain: `another-${crypto.randomBytes(3).toString("hex")}.example`,
        });
        const elsewhere = await service.key(workspaceId, { siteIds: [another.site_id] });
        await patch(elsewhere, { status: "won" }).expect(404);
      });

      it("403 for a key of the site's workspace without sites:write", async () => {
        const reader = await service.key(workspaceId, { scopes: ["sites:read"] });
        await patch(reader, { status: "won" }).expect(403);
      });

      it("400 for a status that does not exist", async () => {
        const writer = await service.key(workspaceId, { scopes: ["sites:read", "sites:write"] });
        await patch(writer, { status: "sold" }).expect(400);
      });

      it("lists it by status for a key with sites:read", async () => {
        const writer = await service.key(workspaceId, { scopes: ["sites:read", "sites:write"] });
        await patch(writer, { status: "qualified" }).expect(200);
        const reader = await service.key(workspaceId, { scopes: ["sites:read"] });
        const listed = await request(service.server)
          .get(`/v1/leads?site_id=${site}&status=qualified`)
          .set("Authorization", `Bearer ${reader}`)
          .expect(200);
        expect(listed.body.data.map((l: { id: string }) => l.id)).to.deep.equal([leadId]);
        expect(listed.body.data[0]).to.include({ email: "ana@example.com", status: "qualified" });
      });
    });
  });

  describe("a session minted by /token that searched, called a function and then ended", () => {
    let session: { session_id: string; signing_secret: string };
    let end: Response;
    const signed = (path: string, payload: unknown, status: number) =>
      signedWith(session, path, payload, status);

    beforeEach(async () => {
      session = await mint();
      await signed("/query", { collection: "products" }, 200);
      await signed(
        "/analytics/event",
        { type: "function_call", function_name: "search_database" },
        202,
      );
      end = await signed(
        "/analytics/event",
        { type: "session_end", metadata: { function_calls: 1 } },
        202,
      );
      await service.events.flush();
    });

    it("records session_end last, with its duration, after the session's other events", async () => {
      const stored = await service.store.events.listUsage(site);
      expect(stored.map((e) => e.type)).to.deep.equal([
        "session_start",
        "db_query",
        "function_call",
        "session_end",
      ]);
      const last = stored.at(-1)!;
      expect(last.id).to.equal(end.body.data.id);
      expect(last.duration_seconds).to.be.a("number").and.at.least(0);
    });

    it("puts conversation.ended on the bus once", () => {
      expect(onBus("conversation.ended")).to.have.length(1);
    });

    it("401 invalid_signature for a call signed with the ended session's secret", async () => {
      const after = await signed("/query", { collection: "products" }, 401);
      expect(after.body.error.code).to.equal("invalid_signature");
    });
  });
});

describe("signed calls that are refused", function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  let backend: DrfServer;
  let openai: OpenAiStandin;
  let service: TestService;
  let workspaceId: string;
  /** A new session for every test, so no test sees what another did to its session. */
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
  /** A POST signed by this test's session. */
  const signedPost = async (payload: unknown, path = "/query") => {
    const text = JSON.stringify(payload);
    return post(
      {
        Origin: ORIGIN,
        "X-Service-Session": session.session_id,
        "X-Service-Signature": await signBody(session.signing_secret, text),
      },
      text,
      path,
    );
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
    workspaceId = await service.workspace();
    await service.sites.create(operatorPrincipal(workspaceId, "test"), nordicSite(backend, SITE));
  });
  beforeEach(async () => {
    session = await newSession(service, { siteId: SITE, workspaceId, origin: ORIGIN });
  });
  afterEach(() => {
    openai.behaviour = "mint";
  });
  after(async () => {
    await service?.stop();
    await openai?.close();
    await backend?.close();
    await database?.drop();
  });

  describe("a wrong signature, an unknown session and every malformed header", () => {
    /** What each case changes in the right headers; `undefined` leaves a header out. */
    const cases: [
      string,
      (good: string) => Promise<Record<string, string | string[] | undefined>>,
    ][] = [
      [
        "a wrong secret",
        async () => ({ "X-Service-Signature": await signBody("0".repeat(64), body) }),
      ],
      [
        "the signature of another body",
        async () => ({ "X-Service-Signature": await signBody(session.signing_secret, `${body} `) }),
      ],
      [
        "an unknown session",
        async () => ({ "X-Service-Session": "sess_01abcdefghjkmnpqrstvwxyz0" }),
      ],
      [
        "a malformed session id",
        async () => ({ "X-Service-Session": "'; DROP TABLE widget_sessions; --" }),
      ],
      ["an empty signature", async () => ({ "X-Service-Signature": "" })],
      [
        "a sha1= signature",
        async (good) => ({ "X-Service-Signature": `sha1=${hex(good).slice(0, 40)}` }),
      ],
      [
        "sha256= and 63 hex digits",
        async (good) => ({ "X-Service-Signature": `sha256=${hex(good).slice(0, 63)}` }),
      ],
      [
        "sha256= and 65 hex digits",
        async (good) => ({ "X-Service-Signature": `sha256=${hex(good)}0` }),
      ],
      [
        "sha256= and non-hex digits",
        async () => ({ "X-Service-Signature": `sha256=${"g".repeat(64)}` }),
      ],
      ["a repeated signature header", async (good) => ({ "X-Service-Signature": [good, good] })],
      ["no signature header", async () => ({ "X-Service-Signature": undefined })],
    ];
    const hex = (signature: string) => signature.slice("sha256=".length);

    for (const [name, override] of cases) {
      it(`401 invalid_signature for ${name}`, async () => {
        const good = await signBody(session.signing_secret, body);
        const headers: Record<string, string | string[] | undefined> = {
          Origin: ORIGIN,
          "X-Service-Session": session.session_id,
          "X-Service-Signature": good,
          ...(await override(good)),
        };
        for (const key of Object.keys(headers)) if (headers[key] === undefined) delete headers[key];
        const res = await post(headers as Record<string, string | string[]>);
        expect(res.status, name).to.equal(401);
        expect(res.body.error.code, name).to.equal("invalid_signature");
      });
    }

    // The same headers with the right signature pass, so the cases above fail for their reason.
    it("200 for the same headers with the right signature", async () => {
      await post({
        Origin: ORIGIN,
        "X-Service-Session": session.session_id,
        "X-Service-Signature": await signBody(session.signing_secret, body),
      }).expect(200);
    });
  });

  describe("on another instance of the same store", () => {
    let other: TestService;
    const onOther = async () => {
      const signature = await signBody(session.signing_secret, body);
      return request(other.server)
        .post(`/v1/${SITE}/query`)
        .set("Content-Type", "application/json")
        .set({
          Origin: ORIGIN,
          "X-Service-Session": session.session_id,
          "X-Service-Signature": signature,
        })
        .send(body);
    };

    before(async () => {
      other = await startTestService(database!.url, {
        SITEVOICE_MASTER_KEY: masterKey,
        SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
      });
    });
    after(async () => {
      await other?.stop();
    });

    it("verifies a session minted on the first instance", async () => {
      const res = await onOther();
      expect(res.status).to.equal(200);
    });

    it("401 invalid_signature for a session past its 2-hour lifetime", async () => {
      const threeHoursAgo = Date.now() - 3 * 60 * 60_000;
      await service.store.db
        .knex("widget_sessions")
        .where({ id: session.session_id })
        .update({ created_at: threeHoursAgo, last_seen_at: threeHoursAgo });
      // The other instance has not held this session: it reads it from the store, past its 2 hours.
      const res = await onOther();
      expect(res.status).to.equal(401);
      expect(res.body.error.code).to.equal("invalid_signature");
    });
  });

  describe("a missing, null, look-alike, other-scheme or other-port Origin", () => {
    for (const origin of [
      undefined,
      "null",
      "https://nordichome.example.evil.com",
      "https://evil-nordichome.example",
      "http://nordichome.example",
      "https://nordichome.example:8443",
    ]) {
      it(`403 origin_not_allowed, without CORS, for Origin ${origin ?? "(none)"}`, async () => {
        const headers: Record<string, string> = {
          "X-Service-Session": session.session_id,
          "X-Service-Signature": await signBody(session.signing_secret, body),
        };
        if (origin !== undefined) headers.Origin = origin;
        const res = await post(headers);
        expect(res.status, String(origin)).to.equal(403);
        expect(res.body.error.code).to.equal("origin_not_allowed");
        expect(res.headers["access-control-allow-origin"]).to.equal(undefined);
      });
    }
  });

  it("400 invalid_request on the signed path for a query without a collection", async () => {
    const missingCollection = await signedPost({ query: "sofa" });
    expect(missingCollection.status).to.equal(400);
    expect(missingCollection.body.error.code).to.equal("invalid_request");
  });

  it("422 validation_failed on the signed path naming a field the collection does not allow", async () => {
    const unknownField = await signedPost({ collection: "products", sort_by: "margin" });
    expect(unknownField.status).to.equal(422);
    expect(unknownField.body.error).to.include({ code: "validation_failed" });
    expect(unknownField.body.error.message).to.include('"margin"');
  });

  it("422 adapter_error on the signed path when the backend fails", async () => {
    const failing = await signedPost({ collection: "broken" });
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
      const res = await signedPost(payload, path);
      expect(res.status).to.equal(400);
      expect(res.body.error.details.field).to.equal("page_url");
    });
  }

  for (const [what, tokenBody] of [
    ["a token's page_url that is not http(s)", { page_url: "javascript:alert(1)" }],
    ["a field a token request lacks", { page: "https://x.example/" }],
  ] as const) {
    it(`400 for ${what}`, async () => {
      const res = await request(service.server)
        .post(`/v1/${SITE}/token`)
        .set("Origin", ORIGIN)
        .send(tokenBody)
        .expect(400);
      expect(res.body.error.details.field).to.match(/^page/);
    });
  }

  it("503 service_unavailable naming the cause when the provider fails", async () => {
    openai.behaviour = "fail"; // afterEach sets it back
    const failed = await request(service.server)
      .post(`/v1/${SITE}/token`)
      .set("Origin", ORIGIN)
      .send({})
      .expect(503);
    expect(failed.body.error.code).to.equal("service_unavailable");
    expect(failed.body.error.message).to.match(/voice provider failed/i);
    expect(failed.body.error.message).not.to.include(openai.apiKey);
  });

  describe("on an instance without an OpenAI key", () => {
    let keyless: TestService;

    before(async () => {
      keyless = await startTestService(database!.url, { SITEVOICE_MASTER_KEY: masterKey });
    });
    after(async () => {
      await keyless?.stop();
    });

    it("503 service_unavailable naming the missing key", async () => {
      const failed = await request(keyless.server)
        .post(`/v1/${SITE}/token`)
        .set("Origin", ORIGIN)
        .send({})
        .expect(503);
      expect(failed.body.error.code).to.equal("service_unavailable");
      expect(failed.body.error.message).to.include("OPENAI_API_KEY");
    });
  });
});
