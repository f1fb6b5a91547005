/**
 * Local time in a site's IANA time zone, fast enough to place a year of quarter hours: the zone's
 * offset is read from Intl once per stretch where it holds (it changes only at DST and law
 * changes), then each instant is local time by one addition. Written here rather than taken from
 * a date library because a summary places up to 35,000 quarter hours per request, and a library
 * resolving the zone per instant costs milliseconds where this costs microseconds.
 */
const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at `ms`, in milliseconds (Asia/Kathmandu: +5:45). */
export function offsetAt(zone: string, ms: number): number {
  let format = formatters.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" });
    formatters.set(zone, format);
  }
  const name = format.formatToParts(ms).find((part) => part.type === "timeZoneName")?.value;
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name ?? "");
  if (match === null) return 0; // "GMT": UTC itself
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return (match[1] === "-" ? -minutes : minutes) * 60_000;
}

/**
 * The offset of a zone at increasing instants: it remembers the stretch it last found and looks
 * again only past its end (found by halving down to the millisecond where the offset changed).
 */
export class ZoneClock {
  #start = Number.POSITIVE_INFINITY;
  #end = Number.NEGATIVE_INFINITY;
  #offset = 0;

  constructor(readonly zone: string) {}

  offset(ms: number): number {
    if (ms >= this.#start && ms < this.#end) return this.#offset;
    const offset = offsetAt(this.zone, ms);
    // The stretch from ms holding this offset, probed a day at a time (no zone changes twice a day).
    let end = ms + DAY_MS;
    while (offsetAt(this.zone, end) === offset && end - ms < 400 * DAY_MS) end += DAY_MS;
    let low = end - DAY_MS;
    let high = end;
    while (high - low > 1) {
      const middle = low + Math.floor((high - low) / 2);
      if (offsetAt(this.zone, middle) === offset) low = middle;
      else high = middle;
    }
    this.#start = ms;
    this.#end = offsetAt(this.zone, end) === offset ? end : high;
    this.#offset = offset;
    return offset;
  }
}

/** `2026-11-23`, the date of a local time (ms since the epoch as if local were UTC). */
export const localDate = (local: number): string => new Date(local).toISOString().slice(0, 10);

/** `2026-11-23T09:00:00+05:45`: a local time with its offset. */
export function localTimestamp(local: number, offset: number): string {
  const sign = offset < 0 ? "-" : "+";
  const minutes = Math.abs(offset) / 60_000;
  const hh = String(Math.floor(minutes / 60)).padStart(2, "0");
  const mm = String(minutes % 60).padStart(2, "0");
  return `${new Date(local).toISOString().slice(0, 19)}${sign}${hh}:${mm}`;
}

export const HOUR = HOUR_MS;
export const DAY = DAY_MS;
