/**
 * The `sv_session=…` pair a sign-up, sign-in or verify answer set, as a browser sends it back;
 * and a member signed up through the API with it.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request, { type Response } from "supertest";
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

/** A new account signed up through the API: its email, session cookie and new workspace's id. */
export async function signUp(service: TestService, workspaceName = "Acme"): Promise<Member> {
  const email = `m${crypto.randomBytes(4).toString("hex")}@members.example`;
  const res = await request(service.server)
    .post("/v1/auth/signup")
    .send({ email, password: PASSWORD, workspace_name: workspaceName })
    .expect(201);
  return { email, cookie: cookieOf(res), workspaceId: res.body.data.workspace.id as string };
}
