/**
 * The dashboard's webhooks page over HTTP, as htmx drives it: endpoints listed, one added with its
 * secret shown once, bad input (a private address too) refused storing nothing, a test event at a
 * real receiver and the delivery log, re-enabling, disabling, a new secret, delete; another
 * workspace's endpoint, no session and a cross-site request refused with nothing changed.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { Webhook } from "standardwebhooks";
import { dashboardPrincipal } from "../core/auth/principal.ts";
import { SHIPPED_EVENT_TYPES } from "../core/webhooks/event-types.ts";
import { signUp } from "./helpers/session-cookie.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { waitUntil } from "./helpers/wait-until.ts";
import { startReceiver, type Receiver } from "./helpers/webhook-receiver.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
/** A secret as the service makes them: whsec_ and the base64 of 32 random bytes. */
const SECRET = /whsec_[A-Za-z0-9+/]{43}=/;
/** A public IP literal: the outbound policy judges it without asking DNS. */
const CRM = "https://93.184.216.34/hooks/sitevoice";
type Method = "post" | "delete" | "get";

describe("the dashboard's webhooks page", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  /** Private networks allowed, so the receiver on 127.0.0.1 may be an endpoint. */
  let service: TestService;
  /** The same store under the default policy (public destinations only), for input alone. */
  let strict: TestService;
  let receiver: Receiver;
  let cookie: string;
  let workspaceId: string;

  /** A new user with a workspace of their own: their cookie and workspace id. */
  const signup = () => signUp(service);
  /** A request of the dashboard as htmx sends it, with the session cookie. */
  const act = (method: Method, url: string, form = {}, extra = {}, on = service) => {
    const headers = { Cookie: cookie, "Sec-Fetch-Site": "same-origin", "HX-Request": "true" };
    const call = request(on.server);
    const sent = call[method](url).set({ ...headers, ...extra });
    return method === "get" ? sent : sent.type("form").send(form);
  };
  const page = (url: string) => request(service.server).get(url).set("Cookie", cookie);
  /** A path of the webhooks page, in this test's workspace unless given. */
  const hooks = (path = "", ws = workspaceId) => `/dashboard/webhooks${path}?workspace_id=${ws}`;
  const endpointsOf = (ws = workspaceId) =>
    service.store.db.knex("webhook_endpoints").where({ workspace_id: ws }).orderBy("created_at");
  /** Adds an endpoint from the form; its id and the secret the answer showed. */
  const added = async (url: string, events = ["lead.captured"]) => {
    const res = await act("post", hooks(), { url, events });
    expect(res.status, res.text).to.equal(200);
    const secret = SECRET.exec(decode(res.text))?.[0];
    expect(secret, res.text).to.be.a("string");
    const row = (await endpointsOf()).find((r: { url: string }) => r.url === url);
    expect(row, "the endpoint is stored").to.not.equal(undefined);
    return { id: row.id as string, secret: secret!, res };
  };

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    // One master key: the two read each other's sessions.
    const env = {
      SITEVOICE_SIGNUP: "open",
      SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
    };
    service = await startTestService(database.url, {
      ...env,
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
    });
    // No jobs: its dispatcher would send the other's deliveries under its own policy.
    strict = await startTestService(database.url, { ...env, SITEVOICE_JOBS: "off" });
    receiver = await startReceiver();
    ({ cookie, workspaceId } = await signup());
  });
  after(async () => {
    await strict?.stop();
    await service?.stop();
    await receiver?.close();
    await database?.drop();
  });

  it("lists the workspace's endpoints and offers every shipped event type", async () => {
    const empty = await page(hooks()).expect(200);
    expect(empty.headers["content-security-policy"]).to.contain("script-src 'self'");
    expect(empty.text).to.contain("No endpoints yet");
    expect(empty.text).to.not.match(/<script(?![^>]*\bsrc=)/); // no inline script
    expect(empty.text).to.not.match(/\sstyle=/);
    expect(empty.text).to.match(/<link rel="stylesheet" href="\/dashboard\/static\/webhooks\.css/);
    const offered = (type: string) => empty.text.includes(`name="events" value="${type}"`);
    expect(SHIPPED_EVENT_TYPES.filter((type) => !offered(type))).to.deep.equal([]);
    const principal = dashboardPrincipal(workspaceId, "test");
    const made = await service.webhooks.create(principal, {
      url: `${CRM}/listed`,
      events: ["lead.updated", "usage.threshold"],
      description: "<img src=x> front desk",
    });
    const listed = await page(hooks()).expect(200);
    expect(listed.text).to.not.contain("No endpoints yet");
    expect(listed.text).to.contain(`id="endpoint-${made.id}"`).and.contain(`${CRM}/listed`);
    expect(listed.text).to.contain("<code>lead.updated</code> <code>usage.threshold</code>");
    expect(listed.text).to.contain("&lt;img src&#x3D;x&gt; front desk").and.not.contain("<img");
    expect(decode(listed.text)).to.contain(`••••${made.secret.slice(-4)}`);
    expect(decode(listed.text)).to.not.contain(made.secret);
    expect(listed.text).to.contain(">Enabled<").and.contain("Send test event");
    await service.webhooks.delete(principal, made.id);
  });

  it("adds an endpoint from the form and shows its secret that once", async () => {
    const { id, secret, res } = await added(receiver.url, ["lead.captured", "conversation.ended"]);
    expect(res.headers["content-type"]).to.match(/^text\/html/);
    expect(res.text).to.contain("shown this once");
    // The list is swapped in beside the answer, the new endpoint in it, the secret masked.
    expect(res.text).to.contain('<div id="webhook-list" hx-swap-oob="true">');
    expect(res.text).to.contain(`id="endpoint-${id}"`);
    expect(decode(res.text).split(secret)).to.have.length(2);
    const row = (await endpointsOf()).find((r: { id: string }) => r.id === id);
    expect(JSON.parse(row.events)).to.deep.equal(["lead.captured", "conversation.ended"]);
    expect(row.secret).to.not.contain(secret); // sealed at rest

    const listed = await page(hooks()).expect(200);
    expect(listed.text).to.contain(`id="endpoint-${id}"`).and.contain(receiver.url);
    expect(decode(listed.text)).to.not.contain(secret);
    expect(decode(listed.text)).to.contain(`••••${secret.slice(-4)}`);
  });

  it("refuses bad input with the API's message, storing nothing", async () => {
    const before = (await endpointsOf()).length;
    const one = "lead.captured";
    for (const [what, form, message, on] of [
      ["a URL that is none", { url: "not a url", events: one }, /url must be an https/, service],
      ["no events", { url: `${CRM}/none` }, /events must have at least 1/, service],
      ["an unknown event", { url: `${CRM}/x`, events: "lead.eaten" }, /"lead\.eaten"/, service],
      ["a private address", { url: "https://10.0.0.7/in", events: one }, /private/, strict],
      ["plain http here", { url: receiver.url, events: one }, /url must use https:/, strict],
    ] as const) {
      const res = await act("post", hooks(), form, {}, on);
      expect(res.status, `${what}: ${res.text}`).to.be.within(400, 499);
      expect(res.headers["content-type"], what).to.match(/^text\/html/);
      expect(res.text, what).to.contain('class="error" role="alert"');
      expect(decode(res.text), what).to.match(message);
      expect(res.text, what).to.not.contain("whsec_");
    }
    expect(await endpointsOf()).to.have.length(before);
  });

  it("lists each problem of a refusal once, in its own words, under their count", async () => {
    const res = await act("post", hooks(), { url: "not a url" });
    expect(res.status, res.text).to.equal(400);
    const text = decode(res.text);
    const alert = /<p class="error" role="alert"[^>]*>([^<]*)<\/p>/.exec(text)?.[1];
    expect(alert).to.equal("Nothing was changed: 2 problems.");
    const items = [...text.matchAll(/<li[^>]*>([^<]*)<\/li>/g)].map((m) => m[1]);
    expect(items).to.have.length(2);
    expect(items[0]).to.match(/^url must be an https/);
    expect(items[1]).to.match(/^events must have at least 1/);
    for (const item of items) expect(text.split(item!)).to.have.length(2);
  });

  it("sends a test event to the real receiver and shows it in the delivery log", async () => {
    const { id, secret } = await added(`${receiver.url}/test`);
    const count = receiver.received.length;
    const verify = (n: number) => {
      const { body, headers } = receiver.received[n]!;
      return new Webhook(secret).verify(body, headers as never) as { type: string; id: string };
    };
    const sent = await act("post", hooks(`/${id}/test`));
    expect(sent.status, sent.text).to.equal(200);
    expect(sent.text).to.match(/Test event sent as delivery dlv_[a-z0-9]+/);
    expect(sent.text).to.contain(`<div id="deliveries-${id}" hx-swap-oob="innerHTML">`);
    await receiver.waitFor(count + 1);
    const payload = verify(count);
    expect(payload.type).to.equal("webhook.test");

    let log = "";
    await waitUntil("the delivery logged as delivered", async () => {
      log = (await act("get", hooks(`/${id}/deliveries`)).expect(200)).text;
      return log.includes('data-status="delivered"');
    });
    expect(log).to.not.match(/^<!doctype/);
    expect(log).to.contain("<code>webhook.test</code>").and.contain("HTTP 200");
    expect(log).to.not.contain('hx-trigger="every 2s"'); // nothing awaits a first attempt

    const full = await page(hooks(`/${id}/deliveries`)).expect(200);
    expect(full.text).to.match(/^<!doctype html>/);
    expect(full.text).to.contain(`id="deliveries-${id}"`).and.contain("HTTP 200");

    const [delivery] = await service.store.webhookDeliveries.page(id, { limit: 1 });
    const again = await act("post", hooks(`/${id}/deliveries/${delivery!.id}/redeliver`));
    expect(again.status, again.text).to.equal(200);
    expect(again.text).to.contain(`Delivery ${delivery!.id} sent again as dlv_`);
    await receiver.waitFor(count + 2);
    expect(verify(count + 1).id).to.equal(payload.id); // the same event, signed again
  });

  it("shows an endpoint its receiver disabled, and enables it again", async () => {
    const gone = await startReceiver(() => ({ status: 410 }));
    try {
      const { id } = await added(gone.url);
      await act("post", hooks(`/${id}/test`)).expect(200);
      await gone.waitFor(1);
      const stored = async () => (await service.store.webhookEndpoints.get(id))!;
      await waitUntil("the endpoint disabled", async () => !(await stored()).enabled);

      const listed = await page(hooks()).expect(200);
      const row = listed.text.slice(listed.text.indexOf(`id="endpoint-${id}"`)).split("</li>")[0];
      expect(row).to.contain("Disabled").and.contain("the receiver answered 410 Gone");
      expect(row).to.contain(">Re-enable<").and.not.contain("Send test event");

      gone.answer = () => ({ status: 200 });
      const enabled = await act("post", hooks(`/${id}/enable`));
      expect(enabled.status, enabled.text).to.equal(200);
      const swapped = `<li id="endpoint-${id}" class="endpoint" hx-swap-oob="true">`;
      expect(enabled.text).to.contain(swapped);
      expect(enabled.text).to.contain(">Enabled<").and.contain("Enabled again");
      expect(enabled.text).to.contain(">Disable<").and.not.contain(">Re-enable<");
      expect(await stored()).to.deep.include({ enabled: true, disabled_reason: null });
      const before = gone.received.length;
      await act("post", hooks(`/${id}/test`)).expect(200);
      await gone.waitFor(before + 1);
    } finally {
      await gone.close();
    }
  });

  it("disables an endpoint, makes it a new secret and deletes it", async () => {
    const { id, secret } = await added(`${CRM}/changes`);
    const disabled = await act("post", hooks(`/${id}/disable`)).expect(200);
    expect(disabled.text).to.contain("Disabled").and.contain("disabled by hand");
    const rotated = await act("post", hooks(`/${id}/rotate-secret`));
    expect(rotated.status, rotated.text).to.equal(200);
    const fresh = SECRET.exec(decode(rotated.text))?.[0];
    expect(fresh).to.be.a("string").and.not.equal(secret);
    const masked = `<code id="secret-${id}" hx-swap-oob="true">••••${fresh!.slice(-4)}`;
    expect(decode(rotated.text)).to.contain(masked);
    const deleted = await act("delete", hooks(`/${id}`));
    expect(deleted.status, deleted.text).to.equal(200);
    expect(deleted.text).to.contain("Deleted").and.contain(`id="endpoint-${id}"`);
    expect(await service.store.webhookEndpoints.get(id)).to.equal(undefined);
  });

  it("finds no endpoint of another workspace, and changes nothing of it", async () => {
    const other = await signup();
    const owner = dashboardPrincipal(other.workspaceId, "t");
    const body = { url: `${CRM}/theirs`, events: ["lead.captured"] };
    const { id } = await service.webhooks.create(owner, body);
    const theirs = await service.webhooks.patch(owner, id, { enabled: false });
    const asked = [
      act("post", hooks(`/${theirs.id}/enable`)),
      act("post", hooks(`/${theirs.id}/test`)),
      act("post", hooks(`/${theirs.id}/rotate-secret`)),
      act("delete", hooks(`/${theirs.id}`)),
      act("get", hooks(`/${theirs.id}/deliveries`)),
      // Their workspace named outright: not one of this user's.
      act("post", hooks(`/${theirs.id}/enable`, other.workspaceId)),
    ];
    for (const res of await Promise.all(asked)) {
      expect(res.status, res.text).to.equal(404);
      expect(res.text).to.contain('role="alert"');
    }
    // Still disabled, with the same secret: nothing changed.
    expect(await service.webhooks.get(owner, id)).to.deep.equal(theirs);
    expect(theirs.enabled).to.equal(false);
    expect(await service.store.webhookDeliveries.page(theirs.id, { limit: 5 })).to.deep.equal([]);
    const mine = await page(hooks()).expect(200);
    expect(mine.text).to.not.contain(theirs.id);
  });

  it("sends a visitor without a session to sign in, and refuses their actions", async () => {
    const before = (await endpointsOf()).length;
    const view = await request(service.server).get(hooks());
    expect(view.status).to.equal(303);
    expect(view.headers.location).to.equal("/dashboard/sign-in");
    const anonymous = { Cookie: "" };
    const create = await act("post", hooks(), { url: `${CRM}/anon`, events: "x" }, anonymous);
    expect(create.status).to.equal(401);
    expect(create.text).to.contain('role="alert"');
    const log = await act("get", hooks("/wh_none/deliveries"), {}, anonymous);
    expect(log.status).to.equal(401);
    expect(await endpointsOf()).to.have.length(before);
  });

  it("refuses a change sent from another site", async () => {
    const { id } = await added(`${CRM}/cross`);
    const before = (await endpointsOf()).length;
    const cross = { "Sec-Fetch-Site": "cross-site" };
    const forged = { url: `${CRM}/forged`, events: "lead.captured" };
    for (const res of [
      await act("post", hooks(), forged, cross),
      await act("delete", hooks(`/${id}`), {}, cross),
      await act("post", hooks(`/${id}/disable`), {}, cross),
    ]) {
      expect(res.status, res.text).to.equal(403);
      expect(res.text).to.contain("own pages");
    }
    expect(await endpointsOf()).to.have.length(before);
    expect((await service.store.webhookEndpoints.get(id))?.enabled).to.equal(true);
  });
});

/** A page with the escapes undone that secrets and messages hold (`=` and `"`). */
const decode = (html: string) => html.replaceAll("&#x3D;", "=").replaceAll("&quot;", '"');
