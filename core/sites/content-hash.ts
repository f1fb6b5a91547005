/**
 * The content hash of a site config. It covers secrets too (a changed token is a change), so it
 * is keyed, under a key derived from the primary master key: a hash shown in a version list
 * cannot be used to guess a secret offline. Rotating the master key recomputes every hash.
 */
import crypto from "node:crypto";
import type { KeyRing } from "../security/secret-box.ts";
import { stableJson } from "../util/stable-json.ts";

export type ContentHasher = (site: unknown) => string;

export function contentHasher(ring: KeyRing): ContentHasher {
  const primary = ring.keys.get(ring.primaryId) as Buffer;
  const key = Buffer.from(
    crypto.hkdfSync("sha256", primary, "", "sitevoice site content hash", 32),
  );
  return (site) => crypto.createHmac("sha256", key).update(stableJson(site)).digest("hex");
}
