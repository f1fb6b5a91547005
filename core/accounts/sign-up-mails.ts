/**
 * The two mails a sign-up sends, one or the other, after its answer (which is the same for both,
 * so that nobody learns from it whether the address has an account): to an address no account
 * confirmed, the link that confirms it; to one an account confirmed, a notice that someone tried,
 * with the way in that the address's owner already has (no link that signs in: a notice must be
 * safe to forward or ignore).
 */
import type { Mail } from "../mail/mailer.ts";

/** The confirmation of a sign-up: `link` opens /dashboard/confirm with the token in its fragment. */
export const confirmationMail = (to: string, link: string): Mail => ({
  to,
  subject: "Confirm your address for Sitevoice",
  text: [
    "Someone, we hope you, signed up for Sitevoice with this address. Open this link within",
    "24 hours to confirm it and sign in. It works once.",
    "",
    link,
    "",
    "If it was not you, ignore this mail: no account counts with this address until it is",
    "confirmed.",
  ].join("\n"),
});

/** The notice to the owner of an account whose address someone signed up with again. */
export const signUpNoticeMail = (to: string, publicBaseUrl: string): Mail => ({
  to,
  subject: "Someone tried to sign up for Sitevoice with your address",
  text: [
    "Someone, maybe you, tried to sign up for Sitevoice with this address, which already has an",
    "account. Nothing changed: your password, your workspaces and your sessions are as they were.",
    "",
    "To get in, sign in on this page with your password, or ask there for a sign-in link by mail:",
    "",
    `${publicBaseUrl}/dashboard/sign-in`,
    "",
    "If it was not you, there is nothing to do.",
  ].join("\n"),
});
