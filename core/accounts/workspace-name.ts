/**
 * A workspace's name is read by people who did not write it: in the invitation mail, and on the
 * dashboard of whoever joins. With open sign-up anyone chooses one, so a name must not be a way
 * to mail a stranger a link: it may hold nothing a mail reader would make clickable (a scheme, a
 * `www.`, a host name, an address, also spelt with look-alike dots), nor a line break or an
 * invisible character that would let it pass for the mail's own text.
 */
import { errors } from "../errors.ts";

/** What a mail reader links: each pattern is checked against the name's NFKC form. */
const LINKS: RegExp[] = [
  /[a-z][a-z0-9+.-]*:\/\//iu, // a scheme and its authority: https://, ftp://
  /\b(?:mailto|javascript|data|file|tel|sms|callto):/iu,
  /\bwww\d{0,3}\./iu,
  // A host name: labels, a dot, and a top-level domain of letters (or an IDN's xn--).
  /[\p{L}\p{N}-]\.(?:\p{L}{2,63}|xn--[a-z0-9-]{2,59})(?![\p{L}\p{N}-])/iu,
  /\b\d{1,3}(?:\.\d{1,3}){3}\b/u, // an IPv4 address
];
/** Control and format characters, but the joiners some scripts (and emoji) are written with. */
const HIDDEN = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const JOINERS = /[\u200c\u200d]/gu;

/** Why `name` may not be a workspace's, or undefined when it may. */
function problemOf(name: string): string | undefined {
  if (HIDDEN.test(name)) return "A workspace name cannot hold line breaks or invisible characters";
  const plain = name.normalize("NFKC").replace(JOINERS, "");
  if (LINKS.some((pattern) => pattern.test(plain))) {
    return "A workspace name cannot hold a link, a web address or a mail address";
  }
  return undefined;
}

/** Throws 400 invalid_request on `field` for a name that may not be a workspace's. */
export function checkWorkspaceName(name: string, field: string): void {
  const problem = problemOf(name);
  if (problem !== undefined) throw errors.invalidRequest(problem, { field });
}

/**
 * The name to quote in a mail: undefined for one stored before names were checked that would not
 * pass now, which the mail then leaves out.
 */
export const mailableWorkspaceName = (name: string): string | undefined =>
  problemOf(name) === undefined ? name : undefined;
