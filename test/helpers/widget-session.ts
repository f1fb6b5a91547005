/**
 * A site on the inline adapter (the fixture plugin `sitevoice-adapter-inline`, so services using
 * it load `SITEVOICE_PLUGINS=sitevoice-adapter-inline`) with an open widget session, and signed
 * widget calls on it exactly as a browser sends them (Web Crypto signatures).
 */
import crypto from "node:crypto";
import request, { type Response } from "supertest";
import { operatorPrincipal } from "../../core/auth/principal.ts";
import type { TestService } from "./test-service.ts";
import { signBody } from "./widget-signature.ts";

/** An open session of a site, with what a widget needs to sign its calls. */
export interface WidgetSession {
  siteId: string;
  workspaceId: string;
  /** The site's https origin, which its calls carry. */
  origin: string;
  session_id: string;
  signing_secret: string;
}

/**
 * A new site (id `<prefix>-<random>`, domain `<domain>`) in a workspace of its own (sites of one
 * workspace may not share a domain), two searchable items, lead capture on, and a session on it.
 */
export async function inlineSiteWithSession(
  service: TestService,
  options: { prefix: string; domain: string },
): Promise<WidgetSession> {
  const workspaceId = await service.workspace();
  const siteId = `${options.prefix}-${crypto.randomBytes(4).toString("hex")}`;
  await service.sites.create(operatorPrincipal(workspaceId, "test"), {
    site_id: siteId,
    business_name: options.prefix,
    business_description: "",
    domain: options.domain,
    lead_capture: { enabled: true, fields: ["name", "email"] },
    adapter: {
      type: "inline",
      config: { records: { items: [{ name: "a" }, { name: "b" }] } },
      collections: { items: { source: "items", searchable_fields: ["name"] } },
    },
  });
  const session = await newSession(service, {
    siteId,
    workspaceId,
    origin: `https://${options.domain}`,
  });
  return session;
}

/** Another session on the same site, as another visitor opens one. */
export async function newSession(
  service: TestService,
  site: Pick<WidgetSession, "siteId" | "workspaceId" | "origin">,
): Promise<WidgetSession> {
  const { session, signingSecret } = await service.sessions.create(
    { site_id: site.siteId, workspace_id: site.workspaceId },
    { ip: `203.0.113.${crypto.randomInt(1, 255)}`, userAgent: "test" },
  );
  return { ...site, session_id: session.id, signing_secret: signingSecret };
}

/** The signed POST a widget sends; the same arguments give the same bytes. */
export async function signedPost(
  service: Pick<TestService, "server">,
  session: Pick<WidgetSession, "siteId" | "origin" | "session_id" | "signing_secret">,
  path: string,
  payload: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  const body = JSON.stringify(payload);
  return request(service.server)
    .post(`/v1/${session.siteId}${path}`)
    .set(headers)
    .set("Origin", session.origin)
    .set("Content-Type", "application/json")
    .set("X-Service-Session", session.session_id)
    .set("X-Service-Signature", await signBody(session.signing_secret, body))
    .send(body);
}
