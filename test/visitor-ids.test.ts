/**
 * Visitor IDs are per workspace, on every database: `user_fingerprint` is a keyed hash of the IP
 * and user agent under a secret of the site's workspace, so one browser has one ID on every site
 * of a workspace and an unrelated one on another workspace's sites (two businesses cannot join
 * what they hold on a visitor by it). The same rule holds for the ID a session is stored under,
 * the lead's record and the `lead.captured` webhook. The workspace's secret is made on first use
 * (instances racing for it agree on one) and kept sealed under the master key.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { open } from "../core/security/secret-box.ts";
import { SessionService } from "../core/widget/session-service.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { waitUntil } from "./helpers/wait-until.ts";
import { addEndpoint } from "./helpers/webhook-endpoints.ts";
import { startReceiver, type Receiver } from "./helpers/webhook-receiver.ts";
import { signedPost } from "./helpers/widget-session.ts";

const IP = "198.51.100.23";
const USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

type Row = Record<string, unknown>;

for (const target of databaseTargets) {
  describe(`visitor IDs per workspace on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let service: TestService;
    let receiver: Receiver;
    /** Two sites of workspace A, one of workspace B. */
    let a: { workspaceId: string; sites: [string, string] };
    let b: { workspaceId: string; site: string };
    /** The lead this visitor left on A's first site and on B's site, and its session's ID. */
    const leads: Record<"a" | "b", { id: string; sessionFingerprint: string }> = {
      a: { id: "", sessionFingerprint: "" },
      b: { id: "", sessionFingerprint: "" },
    };

    /** GET visitor on `siteId` as the one browser of these tests. */
    const shown = async (siteId: string): Promise<string> => {
      const res = await request(service.server)
        .get(`/v1/${siteId}/visitor`)
        .set("Origin", `https://${siteId}.example`)
        .set("User-Agent", USER_AGENT)
        .set("X-Forwarded-For", IP)
        .expect(200);
      const id = res.body.data.user_fingerprint as string;
      expect(id).to.match(/^[0-9a-f]{64}$/);
      return id;
    };

    const site = async (workspaceId: string): Promise<string> => {
      const siteId = `ids-${crypto.randomBytes(4).toString("hex")}`;
      await service.sites.create(operatorPrincipal(workspaceId, "test"), {
        site_id: siteId,
        business_name: siteId,
        business_description: "",
        domain: `${siteId}.example`,
        lead_capture: { enabled: true, fields: ["name", "email"] },
      });
      return siteId;
    };

    /** A session of the browser on `siteId` and the lead it leaves there. */
    const leave = async (workspaceId: string, siteId: string) => {
      const { session, signingSecret } = await service.sessions.create(
        { site_id: siteId, workspace_id: workspaceId },
        { ip: IP, userAgent: USER_AGENT },
      );
      const res = await signedPost(
        service,
        {
          siteId,
          origin: `https://${siteId}.example`,
          session_id: session.id,
          signing_secret: signingSecret,
        },
        "/leads",
        { name: "Ana Quintero", email: "ana.quintero@example.com" },
      );
      expect(res.status, res.text).to.equal(201);
      return { id: res.body.data.lead_id as string, sessionFingerprint: session.user_fingerprint };
    };

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url, {
        SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
        TRUSTED_PROXIES: "loopback",
      });
      receiver = await startReceiver();
      const workspaceA = await service.workspace();
      a = { workspaceId: workspaceA, sites: [await site(workspaceA), await site(workspaceA)] };
      const workspaceB = await service.workspace();
      b = { workspaceId: workspaceB, site: await site(workspaceB) };
      for (const workspaceId of [a.workspaceId, b.workspaceId]) {
        await addEndpoint(service.store, service.ring, {
          workspaceId,
          url: receiver.url,
          events: ["lead.captured"],
        });
      }
      leads.a = await leave(a.workspaceId, a.sites[0]);
      leads.b = await leave(b.workspaceId, b.site);
      await service.events.flush();
      await waitUntil("both lead.captured delivered", () => receiver.received.length === 2, 20_000);
    });
    after(async () => {
      await receiver?.close();
      await service?.stop();
      await database?.drop();
    });

    it("one browser has one ID on two sites of one workspace", async () => {
      expect(await shown(a.sites[1])).to.equal(await shown(a.sites[0]));
    });

    it("the same browser has another ID on a site of another workspace", async () => {
      expect(await shown(b.site)).to.not.equal(await shown(a.sites[0]));
    });

    it("a session is stored under the ID its workspace's sites show", async () => {
      expect(leads.a.sessionFingerprint).to.equal(await shown(a.sites[1]));
      expect(leads.b.sessionFingerprint).to.equal(await shown(b.site));
    });

    it("each workspace's lead record carries its own ID for the visitor", async () => {
      const idOf = async (workspaceId: string, siteId: string, leadId: string) => {
        const key = await service.key(workspaceId);
        const res = await request(service.server)
          .get(`/v1/leads?site_id=${siteId}`)
          .set("Authorization", `Bearer ${key}`)
          .expect(200);
        return (res.body.data as Row[]).find((lead) => lead.id === leadId)?.user_fingerprint;
      };
      const inA = await idOf(a.workspaceId, a.sites[0], leads.a.id);
      const inB = await idOf(b.workspaceId, b.site, leads.b.id);
      expect([inA, inB]).to.deep.equal([await shown(a.sites[1]), await shown(b.site)]);
      expect(inA).to.not.equal(inB);
    });

    it("each workspace's lead.captured webhook carries its own ID for the visitor", async () => {
      const captured = new Map(
        receiver.payloads().map((p) => {
          const lead = (p.data as { lead: Row }).lead;
          return [lead.id, lead.user_fingerprint];
        }),
      );
      const inA = captured.get(leads.a.id);
      const inB = captured.get(leads.b.id);
      expect([inA, inB]).to.deep.equal([await shown(a.sites[0]), await shown(b.site)]);
      expect(inA).to.not.equal(inB);
    });

    it("keeps the workspace's secret sealed under the master key, never in clear", async () => {
      const rows = (await service.store.db
        .knex("workspace_secrets")
        .where({ workspace_id: a.workspaceId })) as { visitor_id_key: string }[];
      expect(rows).to.have.length(1);
      const sealed = rows[0]!.visitor_id_key;
      expect(sealed).to.match(/^enc:v1:/);
      const secret = open(service.ring, sealed);
      expect(JSON.stringify(rows)).to.not.contain(secret);
      // The opened secret is the key the ID is made with: the row holds the real thing.
      const id = crypto
        .createHmac("sha256", Buffer.from(secret, "base64url"))
        .update(`${IP}\n${USER_AGENT}`)
        .digest("hex");
      expect(id).to.equal(await shown(a.sites[0]));
    });

    it("two instances asking a new workspace's first ID at once agree, and one secret is kept", async () => {
      const workspaceId = await service.workspace();
      const siteId = await site(workspaceId);
      const instances = [1, 2].map(() => new SessionService(service.store, service.ring));
      const ids = await Promise.all(
        instances.map((sessions) =>
          sessions.fingerprint(workspaceId, { ip: IP, userAgent: USER_AGENT }),
        ),
      );
      expect(ids[1]).to.equal(ids[0]);
      expect(ids[0]).to.equal(await shown(siteId));
      const kept = await service.store.db.knex("workspace_secrets").where({
        workspace_id: workspaceId,
      });
      expect(kept).to.have.length(1);
    });
  });
}
