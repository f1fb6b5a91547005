/**
 * The `sv_session=…` pair a sign-in, verify, setup or accept answer set, as a browser sends it
 * back; a dashboard request from a client of its own; a member signed up through the API, their
 * address confirmed by the link mailed to it, with that cookie; and the owner the first start's
 * setup link makes.
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

/**
 * A POST of the dashboard's pages from a client IP of its own, so the per-IP limits of the auth
 * routes count each call apart (the service must trust loopback: `TRUSTED_PROXIES=loopback`).
 */
export function dashboardPost(service: TestService, path: string, body: object, cookie?: string) {
  const call = request(service.server)
    .post(path)
    .set("X-Forwarded-For", `198.51.${crypto.randomInt(0, 255)}.${crypto.randomInt(1, 255)}`)
    .set("Sec-Fetch-Site", "same-origin");
  if (cookie !== undefined) call.set("Cookie", cookie);
  return call.send(body);
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

/** The default workspace's owner, made by the first start's setup link: an address proved. */
export async function becomeOwner(service: TestService, email: string): Promise<Member> {
  const setup = await dashboardPost(service, "/v1/auth/setup", {
    token: service.boot.setupLink!.split("#token=")[1]!,
    email,
    password: PASSWORD,
  });
  expect(setup.status, JSON.stringify(setup.body)).to.equal(200);
  return { email, cookie: cookieOf(setup), workspaceId: service.boot.workspaceId };
}
