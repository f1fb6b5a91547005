/**
 * Redaction of personal data in what an erasure keeps (session page URLs, usage event metadata,
 * service event payloads, webhook receivers' answers): the visitor's own values, which the erasure
 * knows from their leads, wherever they appear, and whatever else looks personal: email
 * addresses, phone numbers, IP addresses, user agents, URL query strings and fragments, and the
 * values of fields named for them. Written here because the libraries for this either call a
 * cloud service or are no longer kept, and none knows the visitor's own values.
 */

export const REDACTED = "[redacted]";

const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>]+/gi;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const IPV4 =
  /(?<![\w.])(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}(?!\w|\.\d)/g;
const IPV6 = /(?<![\w:])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?![\w:])/gi;
const PHONE = /(?<![\w.])\+?\(?\d[\d\s().-]{5,}\d(?![\w.])/g;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;
const USER_AGENT =
  /\b(?:Mozilla|AppleWebKit|Gecko|Chrome|Safari|Firefox|Opera|Edg|curl|Wget|okhttp|python-requests)\/\d/i;
/** Fields whose value is personal whatever it looks like. */
const PERSONAL_KEY =
  /^(?:e-?mail|email_address|phone|phone_number|tel|telephone|mobile|ip|ip_address|remote_addr|user_?agent|ua|name|full_name|first_name|last_name|address|street)$/i;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export class Redactor {
  private readonly known: RegExp | undefined;

  /** `known`: the visitor's own values (fingerprint, emails, phones, names), found anywhere. */
  constructor(known: readonly string[]) {
    const values = [...new Set(known.map((v) => v.trim()).filter((v) => v.length >= 3))];
    values.sort((a, b) => b.length - a.length);
    this.known = values.length === 0 ? undefined : new RegExp(values.map(escape).join("|"), "gi");
  }

  /** `text` with every personal value in it replaced by [redacted]. */
  text(text: string): string {
    if (USER_AGENT.test(text)) return REDACTED;
    let out = this.known === undefined ? text : text.replace(this.known, REDACTED);
    out = out.replace(URL_PATTERN, (url) => withoutQuery(url));
    out = out.replace(EMAIL, REDACTED);
    out = out.replace(IPV4, REDACTED);
    out = out.replace(IPV6, (found) => (isIpv6(found) ? REDACTED : found));
    out = out.replace(PHONE, (found) => (isPhone(found) ? REDACTED : found));
    return out;
  }

  /** A URL without its query string and fragment, its path redacted. */
  url(url: string | null): string | null {
    if (url === null) return null;
    return this.text(withoutQuery(url));
  }

  /** A copy of a JSON value with every string redacted, and personal fields' values replaced. */
  json(value: unknown): unknown {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.json(item));
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [
          key,
          PERSONAL_KEY.test(key) && item !== null && typeof item !== "object"
            ? REDACTED
            : this.json(item),
        ]),
      );
    }
    return value;
  }
}

function withoutQuery(url: string): string {
  const cut = url.search(/[?#]/);
  return cut === -1 ? url : url.slice(0, cut);
}

function isPhone(found: string): boolean {
  const digits = found.replace(/\D/g, "").length;
  return digits >= 7 && digits <= 15 && !ISO_DATE.test(found.trim());
}

/** An IPv6 address rather than a time or a ratio: two colons together, or five or more. */
function isIpv6(found: string): boolean {
  return /[0-9a-f]/i.test(found) && (found.includes("::") || found.split(":").length >= 6);
}
