/** `secrets rotate`: every secret re-sealed under the new key, and every site still readable. */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { openServiceEvent } from "../core/events/event-bus.ts";
import { keyId, keyRing, open } from "../core/security/secret-box.ts";
import { loadSettings } from "../core/settings.ts";
import { rotateSecrets } from "../core/sites/secret-rotation.ts";
import { openDatabase } from "../core/store/database.ts";
import { Store } from "../core/store/store.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const adapter = (value: string) => ({
  type: "rest",
  config: { baseUrl: "https://api.rotate.example", auth: { type: "bearer", value } },
  collections: {},
});

for (const target of databaseTargets) {
  describe(`secrets rotate on ${target.label}`, function () {
    let database: TestDatabase | undefined;
    let service: TestService | undefined;
    const oldKey = crypto.randomBytes(32);
    const newKey = crypto.randomBytes(32);

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    it("re-seals sites and versions under the new key; the service then reads them with the new key alone", async () => {
      const url = (database as TestDatabase).url;
      service = await startTestService(url, { SITEVOICE_MASTER_KEY: oldKey.toString("base64") });
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
      const lead = await service.events.emit({
        type: "lead.captured",
        workspace_id: ws,
        site_id: site.site_id,
        data: { update_token: "lt_rotate_token_0123456789" },
        secrets: ["update_token"],
      });
      const { session, signingSecret } = await service.sessions.create(
        { site_id: site.site_id, workspace_id: ws },
        { ip: "203.0.113.9", userAgent: "test" },
      );
      await service.stop();
      service = undefined;

      const store = new Store(openDatabase(loadSettings({ DATABASE_URL: url }).database));
      try {
        const done = await rotateSecrets(store, keyRing(newKey, [oldKey]));
        expect(done).to.deep.equal({ sites: 1, versions: 2, sessions: 1, events: 1 });
        const ring = keyRing(newKey);
        const [event] = await store.events.listService(ws);
        expect(event?.id).to.equal(lead.id);
        expect(openServiceEvent(event!, ring).data.update_token).to.equal(
          "lt_rotate_token_0123456789",
        );
        const sealedSecret = (await store.sessions.get(session.id))!.signing_secret;
        expect(sealedSecret).to.include(`enc:v1:${keyId(newKey)}:`);
        expect(open(ring, sealedSecret)).to.equal(signingSecret);
        const stored = [
          (await store.sites.get(site.site_id))!.config,
          ...(await store.sites.listVersions(site.site_id)).map((v) => v.config),
        ];
        for (const config of stored) {
          expect(config).to.include(`enc:v1:${keyId(newKey)}:`);
          expect(config).not.to.include(`enc:v1:${keyId(oldKey)}:`);
          expect(config).not.to.include("tok_");
        }
      } finally {
        await store.close();
      }

      service = await startTestService(url, { SITEVOICE_MASTER_KEY: newKey.toString("base64") });
      const read = await request(service.server)
        .get(`/v1/sites/${site.site_id}`)
        .set(auth)
        .expect(200);
      expect(read.body.data.adapter.config.auth.value).to.equal("••••bbbb");
      // Hashes were recomputed under the new key: the same content is still no change.
      const same = await request(service.server)
        .patch(`/v1/sites/${site.site_id}`)
        .set(auth)
        .send({ adapter: adapter("tok_second_0123456789bbbb") })
        .expect(200);
      expect(same.body.meta.version).to.equal(2);
      const restored = await request(service.server)
        .post(`/v1/sites/${site.site_id}/versions/1/restore`)
        .set(auth)
        .expect(200);
      expect(restored.body.data.adapter.config.auth.value).to.equal("••••aaaa");
      expect(restored.body.meta.version).to.equal(3);
    });
  });
}
