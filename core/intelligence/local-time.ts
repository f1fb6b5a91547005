/**
 * The local time at a business, as the prompt tells it to the voice model: from the site's time
 * zone, never the server's, with a formatter kept per zone. Apart from the prompt because it
 * changes with Intl and time zones, not with the templates.
 */
import { LRUCache } from "lru-cache";

/**
 * The wall-clock time at the business, from `now` and the site's time zone (never the server's),
 * such as `{text: "Saturday, 21 November 2026, 14:05", timezone: "Europe/Copenhagen"}`. A zone
 * this Node does not know (the schema checks only its shape) gives the time in UTC, labelled so,
 * rather than no conversation at all.
 */
export function formatLocalTime(now: Date, timezone: string): { text: string; timezone: string } {
  let format: Intl.DateTimeFormat;
  try {
    format = dateTimeFormat(timezone);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return formatLocalTime(now, "UTC");
  }
  const parts = Object.fromEntries(format.formatToParts(now).map((p) => [p.type, p.value]));
  return {
    text: `${parts.weekday}, ${parts.day} ${parts.month} ${parts.year}, ${parts.hour}:${parts.minute}`,
    // The site's own spelling, which its owner recognises (ICU may prefer another alias).
    timezone,
  };
}

/** A formatter per time zone (costly to make), the most recently used ones kept. */
const formats = new LRUCache<string, Intl.DateTimeFormat>({ max: 1000 });

function dateTimeFormat(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      weekday: "long",
      day: "numeric",
      month: "long",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    formats.set(timeZone, format);
  }
  return format;
}
