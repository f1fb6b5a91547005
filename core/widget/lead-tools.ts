/**
 * The voice tools that pass a visitor's contact details to the business, both as signed leads
 * (POST /v1/:siteId/leads): `submit_lead`, the details the site asks for, and `request_callback`,
 * a person asked for, with why. Their bounds are those of schemas/lead-create.schema.json, so the
 * model keeps within what the endpoint takes.
 */
import type { VoiceTool } from "../host/plugin.ts";
import type { SiteConfig } from "../sites/site-types.ts";

export const SUBMIT_LEAD = "submit_lead";
export const REQUEST_CALLBACK = "request_callback";

/** The bound of a callback's reason (schemas/lead-create.schema.json). */
const MAX_REASON_LENGTH = 200;

type LeadField = SiteConfig["lead_capture"]["fields"][number];

/** The lengths the lead endpoint takes (schemas/lead-create.schema.json) and the table keeps. */
const LEAD_FIELDS: Record<LeadField, { description: string; maxLength: number }> = {
  name: { description: "The visitor's name.", maxLength: 200 },
  email: {
    description: "The visitor's email address, exactly as they spelled it.",
    maxLength: 320,
  },
  phone: {
    description: "The visitor's phone number, with the country code when they gave one.",
    maxLength: 50,
  },
  message: {
    description: "What the visitor wants, in their words or a short summary.",
    maxLength: 4000,
  },
};

/**
 * The site's configured contact fields. A lead needs an email or a phone to be accepted (see
 * `lead_capture.fields` in schemas/site.schema.json); that rule spans two properties, which would
 * need a root anyOf, so the description states it. When the site asks for neither, both are still
 * offered: without them no lead could ever be accepted.
 */
export function submitLeadTool(configured: LeadField[]): VoiceTool {
  const fields = new Set<LeadField>(configured);
  if (!fields.has("email") && !fields.has("phone")) {
    fields.add("email");
    fields.add("phone");
  }
  const order: LeadField[] = ["name", "email", "phone", "message"];
  const properties = Object.fromEntries(
    order
      .filter((field) => fields.has(field))
      .map((field) => [field, { type: "string", ...LEAD_FIELDS[field] }]),
  );
  return {
    type: "function",
    name: SUBMIT_LEAD,
    description:
      "Passes the visitor's contact details to the business so that someone gets back to them. " +
      "Call it only after the visitor has agreed to share them. An email or a phone number is " +
      "required; ask for one before calling.",
    parameters: { type: "object", properties, additionalProperties: false },
  };
}

/**
 * A person asked for: a name, a phone or an email (one of them required, which the description
 * states, as for submit_lead) and a one-line reason. The widget sends it as a lead with
 * `source: "callback"` and the conversation's turns so far.
 */
export function requestCallbackTool(): VoiceTool {
  const field = (name: LeadField) => ({ type: "string", ...LEAD_FIELDS[name] });
  return {
    type: "function",
    name: REQUEST_CALLBACK,
    description:
      "Asks a person at the business to call or write back the visitor, with the conversation " +
      "so far. Offer it when the visitor asks for a person, or when you cannot help them; call " +
      "it once they agree and have given their name and an email or a phone number (one is " +
      "required; ask for it before calling).",
    parameters: {
      type: "object",
      properties: {
        name: field("name"),
        phone: field("phone"),
        email: field("email"),
        reason: {
          type: "string",
          minLength: 1,
          maxLength: MAX_REASON_LENGTH,
          description: "Why the visitor wants a person, in one short line.",
        },
      },
      required: ["name", "reason"],
      additionalProperties: false,
    },
  };
}
