/**
 * How deeply arrays and objects may nest in what a client or a site file sends. Parsers read a
 * deep value without recursion, but much that walks it later recurses (structuredClone, the
 * validators, deep freezing) and would overflow the stack on a 1 MiB `[[[…]]]`. A site config is
 * a few levels deep, so a value past the limit is refused before anything walks it.
 */
import { errors } from "../errors.ts";

/** The most arrays and objects (lists and mappings in YAML) that may sit one inside another. */
export const MAX_NESTING_DEPTH = 64;

/** What is wrong with a JSON body nested too deeply. */
const tooDeepMessage =
  `The body nests arrays and objects more than ${MAX_NESTING_DEPTH} levels deep ` +
  `(at most ${MAX_NESTING_DEPTH} levels)`;

/**
 * Whether `value` has arrays or objects nested more than `max` levels deep (a bare `[]` is one
 * level, a scalar none). Walks with a stack of its own, never recursion, so it cannot overflow
 * whatever the depth, and stops at the first container past the limit.
 */
export function nestsDeeperThan(value: unknown, max = MAX_NESTING_DEPTH): boolean {
  const pending: { value: object; depth: number }[] = [];
  if (typeof value === "object" && value !== null) pending.push({ value, depth: 1 });
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > max) return true;
    for (const child of Object.values(next.value)) {
      if (typeof child === "object" && child !== null) {
        pending.push({ value: child as object, depth: next.depth + 1 });
      }
    }
  }
  return false;
}

/** 400 invalid_request on `body` for a request body nested more than MAX_NESTING_DEPTH deep. */
export function assertBodyDepth(body: unknown): void {
  if (nestsDeeperThan(body)) {
    throw errors.invalidRequest(tooDeepMessage, {
      field: "body",
      max_depth: MAX_NESTING_DEPTH,
    });
  }
}
