import type { Request } from "express";
import { errors, type ServiceError } from "../errors.ts";

/**
 * The error a bad parameter is: 400 `invalid_request`, or `invalid_params` where the endpoint's
 * contract says so (the analytics reads).
 */
export type InvalidParam = (message: string, details: { field: string }) => ServiceError;

/** A C0 control character or DEL: no parameter of ours means one, and `%00` breaks LIKE. */
const hasControl = (text: string) =>
  [...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);

/**
 * The query parameters of a route that takes `names`, each given at most once, as text: a
 * parameter the route does not take (a typo, `site_id[]`), one given twice or nested, and a
 * value holding a control character are 400 naming the parameter, so a filter never quietly
 * does nothing.
 */
export function queryParams<const K extends string>(
  req: Request,
  names: readonly K[],
  invalid: InvalidParam = errors.invalidRequest,
): Partial<Record<K, string>> {
  const params: Partial<Record<K, string>> = {};
  for (const [name, value] of Object.entries(req.query)) {
    if (!(names as readonly string[]).includes(name)) {
      const takes = names.length === 0 ? "none" : names.join(", ");
      throw invalid(`${name} is not a parameter of this endpoint (it takes ${takes})`, {
        field: name,
      });
    }
    if (typeof value !== "string") {
      throw invalid(`${name} must be given once, as text`, { field: name });
    }
    if (hasControl(value)) {
      throw invalid(`${name} must not hold control characters`, { field: name });
    }
    params[name as K] = value;
  }
  return params;
}
