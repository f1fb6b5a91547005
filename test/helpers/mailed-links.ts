/**
 * Mails as their reader finds them: the mails a real SMTP server (smtp-server.ts) accepted for an
 * address, parsed by mailparser, and the token of a dashboard link in one, taken from its
 * fragment as the page the link opens takes it.
 */
import { expect } from "chai";
import { simpleParser, type ParsedMail } from "mailparser";
import type { Received } from "./smtp-server.ts";
import { waitUntil } from "./wait-until.ts";

/** The mails to `to`, oldest first, once there are at least `count` of them. */
export async function mailsTo(
  smtp: { received: Received[] },
  to: string,
  count = 1,
): Promise<ParsedMail[]> {
  const mine = () => smtp.received.filter((mail) => mail.to.includes(to.toLowerCase()));
  await waitUntil(`${count} mail(s) to ${to}`, () => mine().length >= count);
  return Promise.all(mine().map((mail) => simpleParser(mail.raw)));
}

/** The token of the link to `page` (such as `/dashboard/confirm`) in the mail's text. */
export function linkToken(mail: ParsedMail, page: string): string {
  const text = mail.text ?? "";
  const link = new RegExp(`https?://\\S+${page}#token=([A-Za-z0-9_-]+)`).exec(text);
  expect(link, `a link to ${page} in: ${text}`).to.not.equal(null);
  return link![1]!;
}

/**
 * The token of the `nth` mail to `to` holding a link to `page`, oldest first, once there is one
 * (other mails to the address are passed over).
 */
export async function mailedToken(
  smtp: { received: Received[] },
  to: string,
  page: string,
  nth = 1,
): Promise<string> {
  const address = to.toLowerCase();
  let linking: ParsedMail[] = [];
  await waitUntil(`${nth} mail(s) to ${to} linking to ${page}`, async () => {
    const mine = smtp.received.filter((mail) => mail.to.includes(address));
    const parsed = await Promise.all(mine.map((mail) => simpleParser(mail.raw)));
    linking = parsed.filter((mail) => (mail.text ?? "").includes(`${page}#token=`));
    return linking.length >= nth;
  });
  return linkToken(linking[nth - 1]!, page);
}
