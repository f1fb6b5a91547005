/** The `sv_session=…` pair a sign-up, sign-in or verify answer set, as a browser sends it back. */
import { expect } from "chai";
import type { Response } from "supertest";

export function cookieOf(res: Response): string {
  const set = ([] as string[]).concat(res.headers["set-cookie"] ?? []);
  const cookie = set.find((line) => line.startsWith("sv_session="));
  expect(cookie, `a session cookie: ${JSON.stringify(res.body)}`).to.be.a("string");
  return cookie!.split(";")[0]!;
}
