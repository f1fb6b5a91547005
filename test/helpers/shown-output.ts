/**
 * The outputs the README shows beside its curl examples (`# → {"success":true,…}`), read as
 * patterns and compared with what the service answered.
 *
 * A shown output is JSON in which `…` stands for what the reader need not see:
 * - as an object member (`{"status":"queued",…}`): any further members; an object without one
 *   has exactly the members shown;
 * - as an array element (`[{"name":"Gnocchi",…},…]`): any number of elements, none included;
 * - as a value (`"latency_ms":…`): any value;
 * - inside a string (`"state=fjord-furniture.…"`): any run of characters.
 * Before strings are compared, what differs from run to run is masked on both sides: prefixed
 * ids (`crawl_01jd…` matches any `crawl_` id), ISO timestamps (`2026-12-26T…` matches any) and
 * dates.
 *
 * Hand-written because no JSON parser reads elisions, and the README's outputs should stay the
 * JSON a reader recognizes rather than a schema.
 */

/** Any value, any further members or elements: the `…` of a shown output. */
const ELIDED = Symbol("…");

export type Shown =
  | typeof ELIDED
  | string
  | number
  | boolean
  | null
  | Shown[]
  | { members: [string, Shown][]; open: boolean };

/** Parses one shown output from the start of `text`; returns it and where it ended. */
export function parseShown(text: string): { shown: Shown; end: number } {
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`shown output: ${what} at character ${at} of ${text}`);
  };
  const space = () => {
    while (/\s/.test(text[at] ?? "")) at++;
  };
  const take = (token: string) => {
    space();
    if (!text.startsWith(token, at)) fail(`expected ${token}`);
    at += token.length;
  };
  const string = (): string => {
    const match = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(at));
    if (match === null) return fail("expected a string");
    at += match[0].length;
    return JSON.parse(match[0]) as string;
  };
  const value = (): Shown => {
    space();
    const next = text[at];
    if (next === "…") {
      at++;
      return ELIDED;
    }
    if (next === "{") return object();
    if (next === "[") return array();
    if (next === '"') return string();
    const literal = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(at));
    if (literal === null) return fail("expected a value");
    at += literal[0].length;
    return JSON.parse(literal[0]) as Shown;
  };
  const list = (close: string, item: () => void) => {
    space();
    if (text[at] === close) {
      at++;
      return;
    }
    for (;;) {
      item();
      space();
      if (text[at] === close) {
        at++;
        return;
      }
      take(",");
    }
  };
  const object = (): Shown => {
    take("{");
    const members: [string, Shown][] = [];
    let open = false;
    list("}", () => {
      space();
      if (text[at] === "…") {
        at++;
        open = true;
        return;
      }
      const key = string();
      take(":");
      members.push([key, value()]);
    });
    return { members, open };
  };
  const array = (): Shown => {
    take("[");
    const items: Shown[] = [];
    list("]", () => items.push(value()));
    return items;
  };
  const shown = value();
  return { shown, end: at };
}

/** Masks what differs from run to run: prefixed ids, timestamps and dates. */
function masked(text: string, pattern: boolean): string {
  const ids = pattern ? /\b([a-z]+)_01[0-9a-z]{0,24}…/g : /\b([a-z]+)_[0-9a-hjkmnp-tv-z]{26}\b/g;
  const times = pattern
    ? /\d{4}-\d\d-\d\dT(?:[\d:.]*Z|[\d:.]*…)/g
    : /\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:\d\d)/g;
  return text
    .replace(ids, "$1_<id>")
    .replace(times, "<time>")
    .replace(/\d{4}-\d\d-\d\d/g, "<date>");
}

function stringMatches(shown: string, actual: string): boolean {
  const parts = masked(shown, true).split("…");
  const source = parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\\S]*");
  return new RegExp(`^${source}$`).test(masked(actual, false));
}

/**
 * Where `actual` differs from `shown`: undefined when it matches, else the path of the first
 * difference and what was found there.
 */
export function differenceFrom(shown: Shown, actual: unknown, path = "$"): string | undefined {
  if (shown === ELIDED) return undefined;
  const found = `${path}: shown ${describe(shown)}, answered ${JSON.stringify(actual)}`;
  if (typeof shown === "string") {
    return typeof actual === "string" && stringMatches(shown, actual) ? undefined : found;
  }
  if (shown === null || typeof shown !== "object") return shown === actual ? undefined : found;
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return found;
    return arrayMatches(shown, actual, path) ? undefined : found;
  }
  if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return found;
  const record = actual as Record<string, unknown>;
  for (const [key, value] of shown.members) {
    if (!(key in record)) return `${path}.${key}: shown, but not in the answer`;
    const difference = differenceFrom(value, record[key], `${path}.${key}`);
    if (difference !== undefined) return difference;
  }
  if (!shown.open) {
    const extra = Object.keys(record).filter((key) => !shown.members.some(([k]) => k === key));
    if (extra.length > 0) return `${path}: answered ${extra.join(", ")} too, not shown (add …)`;
  }
  return undefined;
}

/** Whether the elements match in order, each `…` taking any number of elements. */
function arrayMatches(shown: Shown[], actual: unknown[], path: string): boolean {
  const [head, ...rest] = shown;
  if (head === undefined) return actual.length === 0;
  if (head === ELIDED) {
    for (let skip = 0; skip <= actual.length; skip++) {
      if (arrayMatches(rest, actual.slice(skip), path)) return true;
    }
    return false;
  }
  return (
    actual.length > 0 &&
    differenceFrom(head, actual[0], `${path}[]`) === undefined &&
    arrayMatches(rest, actual.slice(1), path)
  );
}

function describe(shown: Shown): string {
  if (shown === ELIDED) return "…";
  if (Array.isArray(shown)) return `[${shown.map(describe).join(",")}]`;
  if (shown !== null && typeof shown === "object") {
    const members = shown.members.map(
      ([key, value]) => `${JSON.stringify(key)}:${describe(value)}`,
    );
    return `{${[...members, ...(shown.open ? ["…"] : [])].join(",")}}`;
  }
  return JSON.stringify(shown);
}
