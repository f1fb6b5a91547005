/**
 * The mail that tells a workspace a visitor asked for a person (a callback request): to its
 * contact address, from the lead as stored. It says who asked, how to reach them, why, and the
 * conversation so far, so whoever calls back needs nothing else; never the lead's update token.
 */
import type { Mail } from "../mail/mailer.ts";
import type { LeadView } from "./lead-view.ts";
import { turnLine } from "./turn-line.ts";

export function callbackMail(to: string, lead: LeadView): Mail {
  const reach = [
    lead.name === null ? undefined : `Name: ${lead.name}`,
    lead.phone === null ? undefined : `Phone: ${lead.phone}`,
    lead.email === null ? undefined : `Email: ${lead.email}`,
    `Reason: ${lead.reason ?? ""}`,
    lead.page_url === null ? undefined : `Page: ${lead.page_url}`,
  ].filter((line) => line !== undefined);
  const turns = lead.turns.map(turnLine);
  return {
    to,
    // Nothing of the visitor's: a service without SMTP writes subjects to its log.
    subject: `Callback requested on ${lead.site_id}`,
    text: [
      `A visitor of ${lead.site_id} asked for a person to get back to them.`,
      "",
      ...reach,
      "",
      ...(turns.length === 0
        ? ["The conversation so far was not sent."]
        : ["The conversation so far:", ...turns]),
      "",
      `Lead ${lead.id}, captured ${lead.created_at}. Its status is set in the dashboard or with`,
      `PATCH /v1/public/leads/${lead.id}.`,
    ].join("\n"),
  };
}
