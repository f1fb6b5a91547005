/**
 * The checks of the mail settings (SMTP_URL, MAIL_FROM, SITEVOICE_OWNER_EMAIL). Each throws an
 * Error whose message is the reason alone, on one line; settings.ts names the variable.
 */

/** A bare mail address: no spaces, no angle brackets, one @ between a local part and a domain. */
const ADDRESS = /^[^\s@<>()[\]\\,;:"]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;

export const isMailAddress = (raw: string): boolean => raw.length <= 254 && ADDRESS.test(raw);

/** A bare address, such as the owner's. */
export function checkMailAddress(raw: string): string {
  if (isMailAddress(raw)) return raw;
  throw new Error(`must be a mail address such as owner@example.com (got ${JSON.stringify(raw)})`);
}

/** A sender: an address or `Display Name <address>`, with no line break (no header injection). */
export function checkMailFrom(raw: string): string {
  const named = /^([^<>\r\n]*)<([^<>]*)>$/.exec(raw);
  const address = named === null ? raw : (named[2] ?? "").trim();
  if (isMailAddress(address) && !/[\r\n]/.test(raw)) return raw;
  throw new Error(
    `must be an address or "Name <address>" such as Sitevoice <no-reply@example.com> (got ${JSON.stringify(raw)})`,
  );
}

/**
 * `smtp://[user:pass@]host[:port]` or `smtps://…`. The message never repeats the value, which may
 * hold a password.
 */
export function checkSmtpUrl(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  if (url === undefined || !["smtp:", "smtps:"].includes(url.protocol) || url.hostname === "") {
    throw new Error(
      "must be an smtp:// or smtps:// URL such as smtp://user:pass@mail.example.com:587",
    );
  }
  if (!["", "/"].includes(url.pathname) || url.search !== "" || url.hash !== "") {
    throw new Error("takes no path, query or fragment after host:port");
  }
  return raw;
}
