import crypto from "node:crypto";
import { encodeTime, isValid, monotonicFactory } from "ulid";

/**
 * Cryptographic random numbers in [0, 1), drawn from a pool refilled 1,024 at a time. The ulid
 * package's default asks the system for one value per character (16 calls an id), which showed
 * as the single largest cost in the signed query benchmark; the source is the same.
 */
function pooledRandom(): () => number {
  const pool = new Uint32Array(1024);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      crypto.getRandomValues(pool);
      next = 0;
    }
    return (pool[next++] as number) / 2 ** 32;
  };
}

const nextUlid = monotonicFactory(pooledRandom());

export type IdPrefix =
  | "site"
  | "evt"
  | "sess"
  | "lead"
  | "trn"
  | "wh"
  | "key"
  | "dlv"
  | "att"
  | "udr"
  | "ws"
  | "usr"
  | "dss"
  | "req"
  | "crawl"
  | "uth"
  | "cus";

/** A prefixed, time-sortable id (the API reference): `site_01jd…`, lower case so it is a valid site_id. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}

/** The least id of `prefix` made at `ms`: every id made later sorts after it. */
export function idAt(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${encodeTime(ms, 10).toLowerCase()}${"0".repeat(16)}`;
}

/** Whether `id` has the form `newId(prefix)` gives. */
export function isId(prefix: IdPrefix, id: string): boolean {
  const [head, ulid, ...rest] = id.split("_");
  return (
    head === prefix &&
    rest.length === 0 &&
    ulid !== undefined &&
    /^[0-9a-z]{26}$/.test(ulid) &&
    isValid(ulid.toUpperCase())
  );
}
