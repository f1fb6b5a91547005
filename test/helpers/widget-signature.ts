/**
 * The widget's request signature as a browser computes it, with Web Crypto: `sha256=` + hex
 * HMAC-SHA256 of the body under the signing secret's UTF-8 bytes. Independent of the service's
 * own code, so tests check the service against the contract, not against itself.
 */
export async function signBody(secret: string, body: string): Promise<string> {
  const key = await globalThis.crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await globalThis.crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body));
  return `sha256=${Buffer.from(mac).toString("hex")}`;
}
