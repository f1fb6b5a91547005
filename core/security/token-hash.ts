import crypto from "node:crypto";

/**
 * How bearer secrets the service hands out (API keys, lead update tokens) are stored: their
 * SHA-256, so a copy of the database holds nothing that authenticates. They are long random
 * values, so no salt or slow hash is needed.
 */
export const hashToken = (value: string): string =>
  crypto.createHash("sha256").update(value).digest("hex");
