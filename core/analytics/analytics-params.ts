/**
 * The query parameters of the analytics reads (the API reference, "Query parameters of GET
 * /v1/:siteId/analytics/events"), each refused as 400 `invalid_params` naming it: dates are ISO
 * 8601, a date alone (`2026-11-01`, midnight UTC) or a date-time with its offset
 * (`2026-11-01T09:30:00Z`, `…+05:30`); a date-time without an offset is refused rather than read
 * in some zone.
 */
import { errors } from "../errors.ts";
import { USAGE_EVENT_TYPES, type UsageEventType } from "../events/event-bus.ts";

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** Milliseconds since the epoch of an ISO date or date-time; 400 naming `field` otherwise. */
export function parseInstant(raw: string, field: string): number {
  const at = DATE.test(raw)
    ? Date.parse(`${raw}T00:00:00Z`)
    : DATE_TIME.test(raw)
      ? Date.parse(raw)
      : NaN;
  if (Number.isNaN(at) || !realDate(raw.slice(0, 10))) {
    throw errors.invalidParams(
      `${field} must be an ISO 8601 date (2026-11-01) or date-time with offset ` +
        `(2026-11-01T09:30:00Z), got "${raw}"`,
      { field },
    );
  }
  return at;
}

/** Whether `YYYY-MM-DD` names a day of the calendar (Date.parse rolls 02-30 into March). */
function realDate(text: string): boolean {
  const [year, month, day] = text.split("-").map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function parseEventType(raw: string): UsageEventType {
  if (!(USAGE_EVENT_TYPES as readonly string[]).includes(raw)) {
    throw errors.invalidParams(
      `type must be one of ${USAGE_EVENT_TYPES.join(", ")}, got "${raw}"`,
      { field: "type" },
    );
  }
  return raw as UsageEventType;
}
