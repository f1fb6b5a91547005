/**
 * Envelope for secrets at rest: AES-256-GCM under a key ring. A sealed value names the key that
 * sealed it, so the ring can hold old keys while values are re-sealed under a new one.
 */
import crypto from "node:crypto";

const PREFIX = "enc:v1:";

export interface KeyRing {
  /** Seals new values. */
  primaryId: string;
  keys: ReadonlyMap<string, Buffer>;
}

export function keyId(key: Buffer): string {
  return crypto.createHash("sha256").update(key).digest("hex").slice(0, 8);
}

export function keyRing(primary: Buffer, older: Buffer[] = []): KeyRing {
  const keys = new Map<string, Buffer>();
  for (const key of [primary, ...older]) keys.set(keyId(key), key);
  return { primaryId: keyId(primary), keys };
}

export const isSealed = (value: unknown): value is string =>
  typeof value === "string" && value.startsWith(PREFIX);

export function seal(ring: KeyRing, plaintext: string): string {
  const key = ring.keys.get(ring.primaryId) as Buffer;
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url"));
  return `${PREFIX}${ring.primaryId}:${parts.join(":")}`;
}

export function open(ring: KeyRing, sealed: string): string {
  const [id, iv, tag, body] = sealed.slice(PREFIX.length).split(":");
  const key = id === undefined ? undefined : ring.keys.get(id);
  if (key === undefined || iv === undefined || tag === undefined || body === undefined) {
    throw new Error(`secret sealed under unknown key ${id ?? "?"}`);
  }
  const decipher = crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([
    decipher.update(Buffer.from(body, "base64url")),
    decipher.final(),
  ]).toString("utf8");
}
