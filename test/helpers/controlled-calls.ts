/**
 * For the call-control suites: a site whose session is minted by the token endpoint (so the
 * service keeps its instructions and tools), a call on the OpenAI stand-in with that session (a
 * virtual one: no browser), reported by the widget's signed call, and waiting for what follows.
 */
import crypto from "node:crypto";
import request from "supertest";
import { operatorPrincipal } from "../../core/auth/principal.ts";
import type { OpenAiStandin } from "./openai-standin.ts";
import type { RealtimeCall, RealtimeEvent } from "./realtime-call.ts";
import type { TestService } from "./test-service.ts";
import { signedPost, type WidgetSession } from "./widget-session.ts";

export interface ReportedCall {
  session: WidgetSession;
  call: RealtimeCall;
  /** The instructions and tools the session was minted with. */
  minted: { instructions: string; tools: RealtimeEvent[] };
}

/** Visitors so far: each token call comes from an address of its own (the token's per-IP limit). */
let visitors = 0;

/** A new site with a session from the token endpoint; `workspaceId` when given. */
export async function mintedSession(
  service: TestService,
  openai: OpenAiStandin,
  workspaceId?: string,
): Promise<{ session: WidgetSession; minted: RealtimeEvent }> {
  visitors += 1;
  const workspace = workspaceId ?? (await service.workspace());
  const siteId = `ctl-${crypto.randomBytes(4).toString("hex")}`;
  const origin = `https://${siteId}.example`;
  await service.sites.create(operatorPrincipal(workspace, "test"), {
    site_id: siteId,
    business_name: "Luigi's",
    business_description: "Never talk about politics.",
    domain: `${siteId}.example`,
  });
  const token = await request(service.server)
    .post(`/v1/${siteId}/token`)
    .set("Origin", origin)
    .set("X-Forwarded-For", `198.51.100.${(visitors % 250) + 1}`)
    .send({ page_url: `${origin}/` })
    .expect(200);
  const answer = openai.requests.at(-1)!.answer as { session: RealtimeEvent };
  const { session_id, signing_secret } = token.body.data as WidgetSession;
  return {
    session: { siteId, workspaceId: workspace, origin, session_id, signing_secret },
    minted: answer.session,
  };
}

/** A call with the session's minted session on the stand-in, reported by the widget. */
export async function reportedCall(
  service: TestService,
  openai: OpenAiStandin,
  workspaceId?: string,
): Promise<ReportedCall> {
  const { session, minted } = await mintedSession(service, openai, workspaceId);
  const call = openai.calls.virtual(minted);
  const res = await signedPost(service, session, "/session/call", { call_id: call.id });
  if (res.status !== 202) throw new Error(`call report answered ${res.status}`);
  return {
    session,
    call,
    minted: { instructions: minted.instructions as string, tools: minted.tools as RealtimeEvent[] },
  };
}

/** A service's settings for these suites: the stand-in as OpenAI, controlled calls checked often. */
export const controlEnv = (openai: OpenAiStandin) => ({
  SITEVOICE_JOBS: "off",
  OPENAI_API_KEY: openai.apiKey,
  OPENAI_BASE_URL: openai.baseUrl,
  SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
  TRUSTED_PROXIES: "loopback",
  SITEVOICE_CALL_CHECK_MS: "200",
});
