/** `secrets rotate`: every secret re-sealed under the new key, and every site still readable. */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { openServiceEvent, type ServiceEvent } from "../core/events/event-bus.ts";
import { keyId, keyRing, open } from "../core/security/secret-box.ts";
import { loadSettings } from "../core/settings.ts";
import { rotateSecrets } from "../core/sites/secret-rotation.ts";
import { openDatabase } from "../core/store/database.ts";
import { Store } from "../core/store/store.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type DatabaseTarget,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { waitUntil } from "./helpers/wait-until.ts";

const adapter = (value: string) => ({
  type: "rest",
  config: { baseUrl: "https://api.rotate.example", auth: { type: "bearer", value } },
  collections: {},
});

/** The browser of the session made before the rotation. */
const VISITOR = { ip: "203.0.113.9", userAgent: "test" };

/**
 * What a rotation starts from and what it did: on a fresh database, a service on the old key
 * made a site with two versions (two tokens), a lead event with a sealed token, a session and
 * two webhook endpoints (one with its secret rotated, so a previous secret too), an export of the
 * session's visitor (its fingerprint and document kept sealed; the session made the workspace's
 * visitor-ID key, sealed too), and in another
 * workspace deleted a site whose name only looks sealed (its `site.deleted` holds that name in
 * clear); the service stopped, and `rotateSecrets` re-sealed everything under the new key.
 */
interface Rotated {
  database: TestDatabase;
  oldKey: Buffer;
  newKey: Buffer;
  workspaceId: string;
  auth: { Authorization: string };
  siteId: string;
  lead: ServiceEvent;
  /** The workspace of the deleted site named "enc:v1:x". */
  otherWorkspaceId: string;
  sessionId: string;
  signingSecret: string;
  /** The webhook endpoints, with their secrets as the API answered them. */
  webhooks: { id: string; secret: string; previous: string | null }[];
  /** A finished export of the session's visitor: its fingerprint and document kept sealed. */
  exportId: string;
  fingerprint: string;
  done: Awaited<ReturnType<typeof rotateSecrets>>;
}

async function rotated(context: Mocha.Context, target: DatabaseTarget): Promise<Rotated> {
  const database = await createTestDatabase(target);
  if (database === undefined) missing(context, target.label);
  const oldKey = crypto.randomBytes(32);
  const newKey = crypto.randomBytes(32);
  const service = await startTestService(database.url, {
    SITEVOICE_MASTER_KEY: oldKey.toString("base64"),
  });
  let made;
  try {
    const ws = service.boot.workspaceId;
    const auth = { Authorization: `Bearer ${await service.key(ws)}` };
    const site = (
      await request(service.server)
        .post("/v1/sites")
        .set(auth)
        .send({
          business_name: "Rotate",
          business_description: "x",
          domain: "rotate.example",
          adapter: adapter("tok_first_0123456789aaaa"),
        })
        .expect(201)
    ).body.data;
    await request(service.server)
      .patch(`/v1/sites/${site.site_id}`)
      .set(auth)
      .send({ adapter: adapter("tok_second_0123456789bbbb") })
      .expect(200);
    const lead = await service.events.transaction((_tx, record) =>
      record({
        type: "lead.captured",
        workspace_id: ws,
        site_id: site.site_id,
        data: { update_token: "lt_rotate_token_0123456789" },
      }),
    );
    const other = operatorPrincipal(await service.workspace(), "test");
    await service.sites.create(other, {
      site_id: "looks-sealed",
      business_name: "enc:v1:x",
      business_description: "x",
      domain: "looks-sealed.example",
    });
    await service.sites.delete(other, "looks-sealed");
    const { session, signingSecret } = await service.sessions.create(
      { site_id: site.site_id, workspace_id: ws },
      VISITOR,
    );
    const webhooks = [];
    for (const rotate of [false, true]) {
      const made = (
        await request(service.server)
          .post("/v1/webhooks")
          .set(auth)
          .send({ url: "https://93.184.216.34/hooks", events: ["lead.captured"] })
          .expect(201)
      ).body.data as { id: string; secret: string };
      if (!rotate) {
        webhooks.push({ id: made.id, secret: made.secret, previous: null });
        continue;
      }
      const rotated = await request(service.server)
        .post(`/v1/webhooks/${made.id}/rotate-secret`)
        .set(auth)
        .expect(200);
      webhooks.push({ id: made.id, secret: rotated.body.data.secret, previous: made.secret });
    }
    const exported = await request(service.server)
      .post("/v1/user-data/export")
      .set(auth)
      .send({ site_id: site.site_id, user_fingerprint: session.user_fingerprint })
      .expect(202);
    const exportId = exported.body.data.request_id as string;
    await waitUntil(
      "the export done",
      async () => (await service.store.userData.get(exportId))?.status === "done",
    );
    made = {
      exportId,
      fingerprint: session.user_fingerprint,
      workspaceId: ws,
      auth,
      siteId: site.site_id as string,
      lead,
      otherWorkspaceId: other.workspaceId,
      sessionId: session.id,
      signingSecret,
      webhooks,
    };
  } finally {
    await service.stop();
  }
  const store = new Store(openDatabase(loadSettings({ DATABASE_URL: database.url }).database));
  try {
    const done = await rotateSecrets(store, keyRing(newKey, [oldKey]));
    return { database, oldKey, newKey, ...made, done };
  } finally {
    await store.close();
  }
}

/**
 * Hooks giving the enclosing describe a rotated store of its own, served on the new key alone;
 * what they made is on the returned object once `before` has run.
 */
function servedOnNewKeyAlone(target: DatabaseTarget): { rotated?: Rotated; service?: TestService } {
  const made: { rotated?: Rotated; service?: TestService } = {};
  before(async function () {
    made.rotated = await rotated(this, target);
    made.service = await startTestService(made.rotated.database.url, {
      SITEVOICE_MASTER_KEY: made.rotated.newKey.toString("base64"),
    });
  });
  after(async () => {
    await made.service?.stop();
    await made.rotated?.database.drop();
  });
  return made;
}

for (const target of databaseTargets) {
  describe(`secrets rotate on ${target.label}`, function () {
    describe("the store after the rotation", () => {
      let r: Rotated | undefined;
      let store: Store;

      before(async function () {
        r = await rotated(this, target);
        store = new Store(openDatabase(loadSettings({ DATABASE_URL: r.database.url }).database));
      });
      after(async () => {
        await store?.close();
        await r?.database.drop();
      });

      it("re-sealed one site, its two versions, one open session, one event, two webhook endpoints, an export's fingerprint and document, and a workspace's visitor-ID key", () => {
        expect(r!.done).to.deep.equal({
          sites: 1,
          versions: 2,
          sessions: 1,
          events: 1,
          webhookEndpoints: 2,
          userData: 2,
          oauthConnections: 0,
          workspaceSecrets: 1,
        });
      });

      it("re-sealed the workspace's visitor-ID key under the new key alone, not in clear", async () => {
        const rows = (await store.db.knex("workspace_secrets")) as Record<string, string>[];
        expect(rows.map((row) => row.workspace_id)).to.deep.equal([r!.workspaceId]);
        const sealed = rows[0]!.visitor_id_key!;
        expect(sealed.startsWith(`enc:v1:${keyId(r!.newKey)}:`), sealed).to.equal(true);
        expect(open(keyRing(r!.newKey), sealed)).to.match(/^[A-Za-z0-9_-]{43}$/);
      });

      it("re-sealed each webhook endpoint's secret and previous secret under the new key alone", async () => {
        const ring = keyRing(r!.newKey);
        const newSeal = `enc:v1:${keyId(r!.newKey)}:`;
        const opened = [];
        for (const { id } of r!.webhooks) {
          const row = (await store.webhookEndpoints.get(id))!;
          expect(JSON.stringify(row)).not.to.include("whsec_");
          for (const sealed of [row.secret, row.previous_secret]) {
            if (sealed !== null) expect(sealed.startsWith(newSeal), sealed).to.equal(true);
          }
          opened.push({
            id,
            secret: open(ring, row.secret),
            previous: row.previous_secret === null ? null : open(ring, row.previous_secret),
          });
        }
        expect(opened).to.deep.equal(r!.webhooks);
      });

      it("re-sealed the event's secret: the new key alone opens it", async () => {
        const ring = keyRing(r!.newKey);
        const [event] = await store.events.listService(r!.workspaceId);
        expect(event?.id).to.equal(r!.lead.id);
        expect(openServiceEvent(event!, ring).data.update_token).to.equal(
          "lt_rotate_token_0123456789",
        );
      });

      it("left the lead's token sealed, under the new key", async () => {
        const [event] = await store.events.listService(r!.workspaceId);
        expect(event?.data).not.to.include("lt_rotate_token_0123456789");
        expect(JSON.parse(event!.data).update_token).to.include(`enc:v1:${keyId(r!.newKey)}:`);
      });

      it("left a deleted site's name that only looks sealed as it was, and its event opens", async () => {
        const [event] = await store.events.listService(r!.otherWorkspaceId);
        expect(event?.type).to.equal("site.deleted");
        expect(JSON.parse(event!.data).business_name).to.equal("enc:v1:x");
        expect(openServiceEvent(event!, keyRing(r!.newKey)).data.business_name).to.equal(
          "enc:v1:x",
        );
      });

      it("re-sealed the session's signing secret under the new key", async () => {
        const ring = keyRing(r!.newKey);
        const sealedSecret = (await store.sessions.get(r!.sessionId))!.signing_secret;
        expect(sealedSecret).to.include(`enc:v1:${keyId(r!.newKey)}:`);
        expect(open(ring, sealedSecret)).to.equal(r!.signingSecret);
      });

      it("re-sealed the site and each version under the new key, none under the old or in clear", async () => {
        const stored = [
          (await store.sites.get(r!.siteId))!.config,
          ...(await store.sites.listVersions(r!.siteId)).map((v) => v.config),
        ];
        const newSeal = `enc:v1:${keyId(r!.newKey)}:`;
        const oldSeal = `enc:v1:${keyId(r!.oldKey)}:`;
        // Each check over every config at once: a failure shows which ones.
        expect(stored.filter((config) => !config.includes(newSeal))).to.deep.equal([]);
        expect(stored.filter((config) => config.includes(oldSeal))).to.deep.equal([]);
        expect(stored.filter((config) => config.includes("tok_"))).to.deep.equal([]);
      });
    });

    describe("the service on the new key alone, after the rotation", () => {
      const on = servedOnNewKeyAlone(target);

      it("reads the site, its secret masked", async () => {
        const read = await request(on.service!.server)
          .get(`/v1/sites/${on.rotated!.siteId}`)
          .set(on.rotated!.auth)
          .expect(200);
        expect(read.body.data.adapter.config.auth.value).to.equal("••••bbbb");
      });

      it("reads the webhook endpoints, their secrets masked", async () => {
        const listed = await request(on.service!.server)
          .get("/v1/webhooks")
          .set(on.rotated!.auth)
          .expect(200);
        const masked = listed.body.data.map((e: { id: string; secret: string }) => [
          e.id,
          e.secret,
        ]);
        expect(masked).to.deep.equal(
          [...on.rotated!.webhooks].reverse().map((w) => [w.id, `••••${w.secret.slice(-4)}`]),
        );
      });

      it("serves the export made before, its document and fingerprint opened with the new key", async () => {
        const view = await request(on.service!.server)
          .get(`/v1/user-data/requests/${on.rotated!.exportId}`)
          .set(on.rotated!.auth)
          .expect(200);
        const link = new URL(view.body.data.download_url as string);
        const document = await request(on.service!.server)
          .get(link.pathname + link.search)
          .expect(200);
        expect(JSON.parse(document.text).user_fingerprint).to.equal(on.rotated!.fingerprint);
        const row = (await on.service!.store.userData.get(on.rotated!.exportId))!;
        expect(row.subject).to.include(`enc:v1:${keyId(on.rotated!.newKey)}:`);
      });

      it("gives the visitor the ID they had before the rotation", async () => {
        const id = await on.service!.sessions.fingerprint(on.rotated!.workspaceId, VISITOR);
        expect(id).to.equal(on.rotated!.fingerprint);
      });

      it("recomputed the hashes under the new key: the same content is still no change", async () => {
        const same = await request(on.service!.server)
          .patch(`/v1/sites/${on.rotated!.siteId}`)
          .set(on.rotated!.auth)
          .send({ adapter: adapter("tok_second_0123456789bbbb") })
          .expect(200);
        expect(same.body.meta.version).to.equal(2);
      });
    });

    // Restoring makes a new version, so this test has a rotated store of its own.
    describe("restoring an old version on the new key alone, after the rotation", () => {
      const on = servedOnNewKeyAlone(target);

      it("restores version 1 with its old secret, as version 3", async () => {
        const restored = await request(on.service!.server)
          .post(`/v1/sites/${on.rotated!.siteId}/versions/1/restore`)
          .set(on.rotated!.auth)
          .expect(200);
        expect(restored.body.data.adapter.config.auth.value).to.equal("••••aaaa");
        expect(restored.body.meta.version).to.equal(3);
      });
    });
  });
}
