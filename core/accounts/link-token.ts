/**
 * The tokens of the links the accounts mail or print: 256 random bits after a prefix naming the
 * link (`ml_` a sign-in link, `su_` a sign-up's confirmation, `inv_` an invitation, `st_` the
 * first owner's setup link). The store keeps their SHA-256 only.
 */
import crypto from "node:crypto";
import { hashToken } from "../security/token-hash.ts";

export type LinkPrefix = "ml" | "su" | "inv" | "st";

/** A new single-use token and the hash the store keeps of it. */
export function newLinkToken(prefix: LinkPrefix): { token: string; hash: string } {
  const token = `${prefix}_${crypto.randomBytes(32).toString("base64url")}`;
  return { token, hash: hashToken(token) };
}
