/**
 * The dashboard's cookie: `sv_session` (`__Host-sv_session` over https), HttpOnly, SameSite=Lax,
 * Secure outside plain-http development, 7 days. It holds a short JWT (HS256, `jose`) naming a
 * server-side session (`dashboard_sessions`), so a sign-out or a revocation takes effect at once;
 * the JWT's signing key derives from the master key, so every instance reads every cookie.
 */
import crypto from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
import type { KeyRing } from "../security/secret-box.ts";

export const SESSION_TTL_MS = 7 * 24 * 60 * 60_000;
const ISSUER = "sitevoice-dashboard";

const derive = (key: Buffer) =>
  new Uint8Array(crypto.hkdfSync("sha256", key, "", "sitevoice dashboard session", 32));

export class SessionTokens {
  private readonly primary: Uint8Array;
  private readonly all: Uint8Array[];

  constructor(ring: KeyRing) {
    this.primary = derive(ring.keys.get(ring.primaryId) as Buffer);
    this.all = [...ring.keys.values()].map(derive);
  }

  /** A JWT naming session `sessionId` of `userId`, valid until `expiresAt` (ms). */
  sign(sessionId: string, userId: string, issuedAt: number, expiresAt: number): Promise<string> {
    return new SignJWT({ sid: sessionId })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(ISSUER)
      .setSubject(userId)
      .setIssuedAt(Math.floor(issuedAt / 1000))
      .setExpirationTime(Math.floor(expiresAt / 1000))
      .sign(this.primary);
  }

  /** The session and user a JWT names, if one of the ring's keys signed it and it is unexpired. */
  async read(
    token: string,
    now: number,
  ): Promise<{ sessionId: string; userId: string } | undefined> {
    for (const key of this.all) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ["HS256"],
          issuer: ISSUER,
          currentDate: new Date(now),
        });
        if (typeof payload.sid !== "string" || typeof payload.sub !== "string") return undefined;
        return { sessionId: payload.sid, userId: payload.sub };
      } catch {
        // another key of the ring, or not ours
      }
    }
    return undefined;
  }
}
