/**
 * A site as the dashboard's settings form holds it, and back: lists one item a line, the number a
 * number, the checkbox a boolean. What the form sends is handed to the site rules unchanged in
 * meaning (a number that is not one stays text, for the rules to name), so every message is the
 * one the API and `sitevoice validate` give. Fields the form has no control for (the adapter,
 * pronunciations, lead capture's fields) are kept as they are; the YAML editor reaches them.
 */
import type { SchemaObject } from "ajv";
import type { SiteView } from "../../sites/site-service.ts";
import { schemaFor } from "../../validation/schema-validator.ts";
import type { FormControls } from "./field-problems.ts";

/** Text fields, sent as typed. */
const TEXT = ["business_name", "business_description", "domain", "industry"] as const;
/** Text fields that take their default when left empty. */
const OPTIONAL_TEXT = ["timezone", "language", "voice", "personality"] as const;

/**
 * The site schema's default of each optional text field. A patch may not set them to null (their
 * schema takes text only), so an emptied field is sent as its default.
 */
const DEFAULTS = Object.fromEntries(
  OPTIONAL_TEXT.map((name) => [
    name,
    (schemaFor("site").properties?.[name] as SchemaObject).default,
  ]),
) as Record<(typeof OPTIONAL_TEXT)[number], string>;
/** Lists, one item a line. */
const LINES = [
  "additional_domains",
  "restricted_topics",
  "enabled_pages",
  "disabled_pages",
] as const;

/** The choices the form offers for the widget button (the site schema's). */
export const BUTTON_CHOICES = {
  positions: ["bottom-right", "bottom-left"],
  sizes: ["small", "medium", "large"],
};

/** The widget button's settings: fields of `appearance`, each a control of its own. */
const APPEARANCE = ["color", "position", "size"] as const;

/** The settings form's controls, by the name each sends. */
const SETTINGS_NAMES: readonly string[] = [
  ...TEXT,
  ...OPTIONAL_TEXT,
  ...LINES,
  "transcript_retention_days",
  "lead_capture",
  ...APPEARANCE,
];

/** The settings form's controls; a problem inside a site field is drawn by its control. */
export const SETTINGS_CONTROLS: FormControls = {
  names: SETTINGS_NAMES,
  controlOf: (field) => {
    const [top = "", inner = ""] = field.split(".");
    if (top === "appearance") return APPEARANCE.find((name) => name === inner);
    return SETTINGS_NAMES.includes(top) ? top : undefined;
  },
};

const CREATE_NAMES: readonly string[] = [...TEXT, "site_id"];

/** The new-site form's controls. */
export const CREATE_CONTROLS: FormControls = {
  names: CREATE_NAMES,
  controlOf: (field) => {
    const top = field.split(".")[0] ?? "";
    return CREATE_NAMES.includes(top) ? top : undefined;
  },
};

export interface SiteFormFields {
  [field: string]: string | boolean;
}

/** The form's values for `site`. */
export function siteFormFields(site: SiteView): SiteFormFields {
  const fields: SiteFormFields = {};
  for (const name of [...TEXT, ...OPTIONAL_TEXT]) fields[name] = String(site[name] ?? "");
  for (const name of LINES) fields[name] = ((site[name] as string[] | undefined) ?? []).join("\n");
  fields.transcript_retention_days = String(site.transcript_retention_days ?? "");
  fields.lead_capture = site.lead_capture?.enabled === true;
  fields.color = site.appearance?.color ?? "";
  fields.position = site.appearance?.position ?? "";
  fields.size = site.appearance?.size ?? "";
  return fields;
}

const text = (value: unknown) => (typeof value === "string" ? value : "");

/**
 * The body of a create (`creating`: only the fields given) or a patch (every field the form
 * shows, merged into `current`'s objects) from the form's values.
 */
export function siteFromForm(
  form: Record<string, unknown>,
  options: { creating: true } | { current: SiteView },
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if ("creating" in options) {
    for (const name of [...TEXT, "site_id"]) {
      if (text(form[name]).trim() !== "") body[name] = text(form[name]).trim();
    }
    if (body.business_description === undefined) body.business_description = "";
    return body;
  }
  const { current } = options;
  for (const name of TEXT) body[name] = text(form[name]).trim();
  for (const name of OPTIONAL_TEXT) {
    const value = text(form[name]).trim();
    body[name] = value === "" ? DEFAULTS[name] : value;
  }
  for (const name of LINES) {
    body[name] = text(form[name])
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== "");
  }
  const days = text(form.transcript_retention_days).trim();
  body.transcript_retention_days = /^\d{1,9}$/.test(days) ? Number(days) : days;
  body.lead_capture = { ...current.lead_capture, enabled: form.lead_capture === "on" };
  body.appearance = {
    ...current.appearance,
    color: text(form.color).trim(),
    position: text(form.position),
    size: text(form.size),
  };
  return body;
}
