/**
 * How a webhook delivery is signed (the API reference, "Webhooks"): two
 * header sets over the same raw body, so a receiver can check either with an off-the-shelf
 * verifier.
 *
 * - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the body, keyed with the whole secret
 *   string as shown (its UTF-8 bytes), and `X-Service-Timestamp` in milliseconds. This is what
 *   `verify(secret, body, signature)` of @octokit/webhooks-methods checks.
 * - Standard Webhooks: `webhook-id` (the event id), `webhook-timestamp` (seconds) and
 *   `webhook-signature: v1,<base64>`, an HMAC-SHA256 of `id.timestamp.body` keyed with the
 *   base64-decoded part of the secret after `whsec_`. While a rotated secret still signs, both
 *   signatures are sent, space-separated, newest first; `X-Service-Signature` carries the newest.
 */
import crypto from "node:crypto";

/** The prefix of a webhook secret as shown, as Standard Webhooks writes its secrets. */
const SECRET_PREFIX = "whsec_";
/** Random bytes in a new secret (the API reference: 24 to 32). */
const SECRET_BYTES = 32;

/** A new webhook secret: `whsec_` and the base64 of 32 random bytes. Shown once, then sealed. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${crypto.randomBytes(SECRET_BYTES).toString("base64")}`;
}

/** Whether `value` has the shape of a webhook secret this service makes. */
export function isWebhookSecret(value: string): boolean {
  if (!value.startsWith(SECRET_PREFIX)) return false;
  const key = Buffer.from(value.slice(SECRET_PREFIX.length), "base64");
  return key.length >= 24 && key.length <= 64;
}

export interface SignedDelivery {
  /** The secrets that sign, newest first: one, or two for a day after a rotation. */
  secrets: readonly string[];
  /** The event id: Standard Webhooks' message id, the same for every attempt and redelivery. */
  eventId: string;
  /** When this attempt is sent, in milliseconds since the epoch. */
  timestampMs: number;
  /** The exact bytes posted. */
  body: Buffer;
}

/** The signature headers of one delivery attempt (see the header comment). */
export function signatureHeaders(delivery: SignedDelivery): Record<string, string> {
  const { secrets, eventId, timestampMs, body } = delivery;
  const newest = secrets[0];
  if (newest === undefined) throw new Error("a webhook delivery needs a secret to sign with");
  const seconds = Math.floor(timestampMs / 1000);
  const signed = Buffer.concat([Buffer.from(`${eventId}.${seconds}.`, "utf8"), body]);
  const standard = secrets.map(
    (secret) =>
      `v1,${crypto.createHmac("sha256", standardKey(secret)).update(signed).digest("base64")}`,
  );
  return {
    "X-Service-Signature": `sha256=${crypto.createHmac("sha256", Buffer.from(newest, "utf8")).update(body).digest("hex")}`,
    "X-Service-Timestamp": String(timestampMs),
    "webhook-id": eventId,
    "webhook-timestamp": String(seconds),
    "webhook-signature": standard.join(" "),
  };
}

/** The Standard Webhooks key of a secret: the bytes its base64 part after `whsec_` stands for. */
function standardKey(secret: string): Buffer {
  if (!isWebhookSecret(secret)) throw new Error("not a webhook secret (whsec_<base64>)");
  return Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
}
