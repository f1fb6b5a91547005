/**
 * What would change between two versions of a site, field by field, as `sitevoice diff` and
 * `PUT /v1/sites/:id?dry_run=true` show it. Secrets are compared on their real values and shown
 * masked.
 */
import { isDeepStrictEqual } from "node:util";
import { isSecretPath, maskSecret, MASK } from "./site-secrets.ts";

/** One changed field: added (no `before`), removed (no `after`) or changed. */
export interface FieldChange {
  /** Dotted path, as validation errors name fields: `adapter.config.auth.value`. */
  field: string;
  /** The same path as keys, for keys that hold dots themselves (a pronunciation of "St. Mary's"). */
  path: string[];
  op: "add" | "remove" | "change";
  before?: unknown;
  after?: unknown;
}

/** Shown when a secret changed but its masked form did not (same last four characters). */
export const SECRET_CHANGED = `${MASK} (changed)`;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The changes that turn `before` into `after`. Mappings are compared key by key down to their
 * leaves; a list is one value (a changed list is shown whole). Keys keep `after`'s order, then
 * the removed ones.
 */
export function diffSites(before: object, after: object): FieldChange[] {
  const changes: FieldChange[] = [];
  walk(before as Record<string, unknown>, after as Record<string, unknown>, [], changes);
  return changes;
}

function walk(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  path: string[],
  changes: FieldChange[],
) {
  const keys = [...Object.keys(after), ...Object.keys(before).filter((key) => !(key in after))];
  for (const key of keys) {
    const at = [...path, key];
    const was = before[key];
    const now = after[key];
    if (isObject(was) && isObject(now)) {
      walk(was, now, at, changes);
      continue;
    }
    if (isDeepStrictEqual(was, now)) continue;
    const change: FieldChange = {
      field: at.join("."),
      path: at,
      op: was === undefined ? "add" : now === undefined ? "remove" : "change",
    };
    if (was !== undefined) change.before = shown(at, was);
    if (now !== undefined) change.after = shown(at, now);
    if (change.op === "change" && isDeepStrictEqual(change.before, change.after)) {
      change.after = SECRET_CHANGED;
    }
    changes.push(change);
  }
}

/** A value as it may be shown: a secret masked, wherever it sits. */
function shown(path: string[], value: unknown): unknown {
  if (typeof value === "string") return isSecretPath(path) ? maskSecret(value, path.at(-1)) : value;
  if (Array.isArray(value)) return value.map((item) => shown(path, item));
  if (isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shown([...path, k], v)]));
  }
  return value;
}
