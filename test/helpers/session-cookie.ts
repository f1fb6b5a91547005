/**
 * The `sv_session=…` pair a sign-in, verify, setup or accept answer set, as a browser sends it
 * back; and a member signed up through the API, their address confirmed by the link mailed to
 * it, with that cookie.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request, { type Response } from "supertest";
import { mailedToken } from "./mailed-links.ts";
import type { Received } from "./smtp-server.ts";
import type { TestService } from "./test-service.ts";

export const PASSWORD = "correct horse battery";

export function cookieOf(res: Response): string {
  const set = ([] as string[]).concat(res.headers["set-cookie"] ?? []);
  const cookie = set.find((line) => line.startsWith("sv_session="));
  expect(cookie, `a session cookie: ${JSON.stringify(res.body)}`).to.be.a("string");
  return cookie!.split(";")[0]!;
}

export interface Member {
  email: string;
  cookie: string;
  workspaceId: string;
}

/**
 * A new account signed up through the API and confirmed by the link mailed to it (in `mailbox`,
 * the service's own by default): its email, session cookie and new workspace's id.
 */
export async function signUp(
  service: TestService,
  workspaceName = "Acme",
  mailbox: { received: Received[] } | undefined = service.mailbox,
  email = `m${crypto.randomBytes(4).toString("hex")}@members.example`,
): Promise<Member> {
  expect(mailbox, "an SMTP server the service mails (SITEVOICE_SIGNUP=open)").to.not.equal(
    undefined,
  );
  const signedUp = await request(service.server)
    .post("/v1/auth/signup")
    .send({ email, password: PASSWORD, workspace_name: workspaceName });
  expect(signedUp.status, JSON.stringify(signedUp.body)).to.equal(202);
  const token = await mailedToken(mailbox!, email, "/dashboard/confirm");
  const confirmed = await request(service.server)
    .post("/v1/auth/verify")
    .send({ token })
    .expect(200);
  return {
    email,
    cookie: cookieOf(confirmed),
    workspaceId: confirmed.body.data.workspaces[0].id as string,
  };
}
