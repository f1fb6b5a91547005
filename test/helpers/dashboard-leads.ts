/**
 * What the dashboard's leads and visitor-data tests start from: a signed-up member's cookie and
 * workspace, sites with lead capture on, and leads left through the widget by visitors of their
 * own (a session signed as a browser signs), with each visitor's fingerprint.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import { operatorPrincipal } from "../../core/auth/principal.ts";
import type { TestService } from "./test-service.ts";
import { signedPost } from "./widget-session.ts";

export { signUp } from "./session-cookie.ts";

/** A new site named `name` (id `<name>-<random>`) with lead capture on, made as the operator. */
export async function newSite(service: TestService, workspaceId: string, name: string) {
  const siteId = `${name.toLowerCase()}-${crypto.randomBytes(3).toString("hex")}`;
  await service.sites.create(operatorPrincipal(workspaceId, "test"), {
    site_id: siteId,
    business_name: name,
    business_description: "",
    domain: `${siteId}.example`,
    lead_capture: { enabled: true, fields: ["name", "email", "phone"] },
  });
  return siteId;
}

/** A lead left through the widget by a new visitor: its id and the visitor's fingerprint. */
export async function captureLead(
  service: TestService,
  workspaceId: string,
  siteId: string,
  lead: Record<string, unknown>,
): Promise<{ id: string; fingerprint: string }> {
  const visitor = { ip: `203.0.113.${crypto.randomInt(1, 255)}`, userAgent: crypto.randomUUID() };
  const { session, signingSecret } = await service.sessions.create(
    { site_id: siteId, workspace_id: workspaceId },
    visitor,
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
    lead,
  );
  expect(res.status, res.text).to.equal(201);
  return {
    id: res.body.data.lead_id as string,
    fingerprint: session.user_fingerprint,
  };
}
