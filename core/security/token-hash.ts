import crypto from "node:crypto";

/**
 * How bearer secrets the service hands out (API keys, lead update tokens) are looked up: by their
 * SHA-256, so the tables that hold them hold nothing that authenticates (a lead's token is also
 * kept sealed in its lead.captured event, for delivery: opening it takes the master key). They
 * are long random values, so no salt or slow hash is needed.
 */
export const hashToken = (value: string): string =>
  crypto.createHash("sha256").update(value).digest("hex");
