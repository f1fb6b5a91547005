/**
 * The string formats of our schemas that no standard format checks, shared by every Ajv that
 * reads them (the service's and each plugin's), so a rule holds wherever the schema is used.
 */
import type { Ajv } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";

/** A time zone the runtime's ICU knows (IANA names and their aliases, UTC). */
function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/**
 * An absolute URL as the WHATWG parser reads it (the one the adapters connect with), so a port
 * over 65535 or a broken host is refused on save rather than at the first search. A value that
 * still holds a `${…}` secret reference is judged once the reference is resolved.
 */
function isAbsoluteUrl(value: string): boolean {
  if (value.includes("${")) return true;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

const CUSTOM_FORMATS = {
  "time-zone": isTimeZone,
  "absolute-url": isAbsoluteUrl,
} as const;

/** Registers the custom formats on `ajv`. */
export function addCustomFormats(ajv: Ajv | Ajv2020): void {
  for (const [name, validate] of Object.entries(CUSTOM_FORMATS)) {
    ajv.addFormat(name, { type: "string", validate });
  }
}
