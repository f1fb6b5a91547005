/**
 * Two visitors on two sites of one workspace, seeded through the widget API as browsers would:
 * sessions (with page URLs), usage events (with metadata naming the visitor), transcripts, leads
 * (one updated with notes), session ends, and webhook deliveries to a real receiver that echoes
 * each body back (so the delivery log keeps a copy of the payload). What each visitor owns on
 * each site is recorded, for the tests to compare exports and erasures against.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../../core/auth/principal.ts";
import type { TestService } from "./test-service.ts";
import { waitUntil } from "./wait-until.ts";
import { addEndpoint } from "./webhook-endpoints.ts";
import { startReceiver, type Receiver } from "./webhook-receiver.ts";
import { signedPost, type WidgetSession } from "./widget-session.ts";

export interface Visitor {
  name: string;
  email: string;
  phone: string;
  /** Its phone's digits, the form the store also keeps. */
  phoneDigits: string;
  ip: string;
  userAgent: string;
  fingerprint: string;
}

export interface Owned {
  sessions: string[];
  transcripts: string[];
  leads: string[];
}

export interface Seeded {
  workspaceId: string;
  sites: [string, string];
  visitors: [Visitor, Visitor];
  /** `owned[visitor][site]`. */
  owned: Owned[][];
  receiver: Receiver;
  close(): Promise<void>;
}

const VISITORS = [
  {
    name: "Ana Quintero",
    email: "ana.quintero@example.com",
    phone: "+1 (555) 010-2030",
    ip: "203.0.113.41",
    userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36",
  },
  {
    name: "Bo Lindqvist",
    email: "bo.lindqvist@example.org",
    phone: "+44 20 7946 0958",
    ip: "198.51.100.77",
    userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) Gecko/20100101 Firefox/132.0",
  },
];

export async function seedVisitors(service: TestService): Promise<Seeded> {
  const workspaceId = await service.workspace();
  await service.store.workspaces.setContactEmail(workspaceId, "owner@business.example");
  const suffix = crypto.randomBytes(3).toString("hex");
  const sites: [string, string] = [`rights-a-${suffix}`, `rights-b-${suffix}`];
  for (const siteId of sites) {
    await service.sites.create(operatorPrincipal(workspaceId, "test"), {
      site_id: siteId,
      business_name: siteId,
      business_description: "",
      domain: `${siteId}.example`,
      lead_capture: { enabled: true, fields: ["name", "email", "phone"] },
    });
  }
  const receiver = await startReceiver((_n, received) => ({
    status: 200,
    headers: { "Content-Type": "application/json" },
    body: received.body,
  }));
  await addEndpoint(service.store, service.ring, {
    workspaceId,
    url: receiver.url,
    events: ["lead.captured", "lead.updated", "conversation.ended"],
  });
  const visitors = (await Promise.all(
    VISITORS.map(async (v) => ({
      ...v,
      phoneDigits: v.phone.replace(/\D/g, ""),
      fingerprint: await service.sessions.fingerprint(workspaceId, {
        ip: v.ip,
        userAgent: v.userAgent,
      }),
    })),
  )) as [Visitor, Visitor];
  const key = await service.key(workspaceId, { scopes: ["sites:write"] });
  const owned: Owned[][] = [];
  let deliveries = 0;
  for (const visitor of visitors) {
    const perSite: Owned[] = [];
    for (const siteId of sites) {
      const mine: Owned = { sessions: [], transcripts: [], leads: [] };
      // Two sessions on the first site, one on the second.
      for (let n = 0; n < (siteId === sites[0] ? 2 : 1); n++) {
        const session = await openSession(service, workspaceId, siteId, visitor, n);
        mine.sessions.push(session.session_id);
        await sendSession(service, session, visitor, n, mine, key);
        deliveries += n === 0 ? 3 : 1; // lead.captured and lead.updated, conversation.ended
      }
      perSite.push(mine);
    }
    owned.push(perSite);
  }
  await service.events.flush();
  await waitUntil(
    "every webhook delivered",
    async () => {
      const rows = await service.store.db.knex("webhook_deliveries").where({ status: "delivered" });
      return rows.length === deliveries;
    },
    20_000,
  );
  return {
    workspaceId,
    sites,
    visitors,
    owned,
    receiver,
    close: () => receiver.close(),
  };
}

async function openSession(
  service: TestService,
  workspaceId: string,
  siteId: string,
  visitor: Visitor,
  n: number,
): Promise<WidgetSession> {
  const pageUrl = `https://${siteId}.example/pricing?ref=mail&email=${encodeURIComponent(visitor.email)}&n=${n}`;
  const { session, signingSecret } = await service.sessions.create(
    { site_id: siteId, workspace_id: workspaceId },
    { ip: visitor.ip, userAgent: visitor.userAgent },
    pageUrl,
  );
  await service.events.recordUsage({
    site_id: siteId,
    session_id: session.id,
    type: "session_start",
    metadata: { session_id: session.id },
    client_event_id: `session_start:${session.id}`,
  });
  return {
    siteId,
    workspaceId,
    origin: `https://${siteId}.example`,
    session_id: session.id,
    signing_secret: signingSecret,
  };
}

/** What one session of a visitor sends; the first session of each site also leaves a lead. */
async function sendSession(
  service: TestService,
  session: WidgetSession,
  visitor: Visitor,
  n: number,
  mine: Owned,
  key: string,
): Promise<void> {
  const post = async (path: string, body: unknown, status: number) => {
    const res = await signedPost(service, session, path, body);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).to.equal(status);
    return res;
  };
  await post(
    "/analytics/event",
    {
      type: "function_call",
      function_name: "search_database",
      metadata: {
        client_event_id: `fc-${session.session_id}`,
        query: `sofa for ${visitor.email}`,
        phone: visitor.phone,
        page: `https://${session.siteId}.example/sofas?email=${visitor.email}`,
        user_agent: visitor.userAgent,
        ip: visitor.ip,
        fingerprint_note: visitor.fingerprint,
      },
    },
    202,
  );
  await post(
    "/transcript",
    {
      turns: [
        {
          role: "visitor",
          text: `I'm ${visitor.name}, mail me at ${visitor.email} or call ${visitor.phone}`,
          at: new Date().toISOString(),
        },
        { role: "assistant", text: "Noted.", at: new Date().toISOString() },
      ],
    },
    202,
  );
  mine.transcripts.push(
    ...(await service.store.db.knex("transcripts").where({ session_id: session.session_id })).map(
      (row: { id: string }) => row.id,
    ),
  );
  if (n === 0) {
    const lead = await post(
      "/leads",
      {
        name: visitor.name,
        email: visitor.email,
        phone: visitor.phone,
        message: `Call ${visitor.phone} after 5`,
        page_url: `https://${session.siteId}.example/contact?from=${encodeURIComponent(visitor.email)}`,
      },
      201,
    );
    const leadId = lead.body.data.lead_id as string;
    mine.leads.push(leadId);
    await request(service.server)
      .patch(`/v1/public/leads/${leadId}`)
      .set("Authorization", `Bearer ${key}`)
      .send({ status: "contacted", notes: `Spoke with ${visitor.name} on ${visitor.phone}` })
      .expect(200);
  }
  await post("/analytics/event", { type: "session_end" }, 202);
}
