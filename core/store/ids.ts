import { monotonicFactory } from "ulid";

const nextUlid = monotonicFactory();

export type IdPrefix =
  "site" | "evt" | "sess" | "lead" | "trn" | "wh" | "key" | "dlv" | "udr" | "ws" | "usr" | "req";

/** A prefixed, time-sortable id (DECISIONS.md): `site_01jd…`, lower case so it is a valid site_id. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}
