/**
 * The signed download link of an export: `/v1/user-data/exports/:id/download?expires=…&signature=…`,
 * where the signature is an HMAC-SHA256 over the request id and the expiry (seconds since the
 * epoch) under a key derived from the master key, so every instance signs and checks alike and
 * no API key is needed to follow it. Links signed under an older master key of the ring still
 * open until they expire.
 */
import crypto from "node:crypto";
import type { KeyRing } from "../security/secret-box.ts";

const derive = (key: Buffer) =>
  Buffer.from(crypto.hkdfSync("sha256", key, "", "sitevoice export download", 32));

export class DownloadLinks {
  private readonly primary: Buffer;
  private readonly all: Buffer[];

  constructor(ring: KeyRing) {
    this.primary = derive(ring.keys.get(ring.primaryId) as Buffer);
    this.all = [...ring.keys.values()].map(derive);
  }

  /** The path and query of the link to `requestId`'s document, valid until `expiresAt` (ms). */
  path(requestId: string, expiresAt: number): string {
    const expires = Math.floor(expiresAt / 1000);
    const signature = sign(this.primary, requestId, expires);
    return `/v1/user-data/exports/${requestId}/download?expires=${expires}&signature=${signature}`;
  }

  /** Whether `signature` signs `requestId` until `expires`, and that time is still to come. */
  valid(requestId: string, expires: unknown, signature: unknown, now: number): boolean {
    if (typeof expires !== "string" || !/^\d{1,12}$/.test(expires)) return false;
    if (typeof signature !== "string" || !/^[0-9a-f]{64}$/.test(signature)) return false;
    const seconds = Number(expires);
    if (seconds * 1000 <= now) return false;
    const given = Buffer.from(signature, "hex");
    return this.all.some((key) =>
      crypto.timingSafeEqual(Buffer.from(sign(key, requestId, seconds), "hex"), given),
    );
  }
}

function sign(key: Buffer, requestId: string, expires: number): string {
  return crypto.createHmac("sha256", key).update(`${requestId}\n${expires}`).digest("hex");
}
