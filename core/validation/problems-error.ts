/**
 * A problem with a body or a site (its field, a sentence naming it, and whether it breaks a
 * business rule or the shape), and the one ServiceError a list of them becomes: 422 when every
 * problem is a business rule, else 400. Shared by the schema checks and the site rules.
 */
import { errors as serviceErrors } from "../errors.ts";
import type { ServiceError } from "../errors.ts";

/** One problem with a body, as listed in `error.details.errors`. */
interface FieldError {
  /** Dotted path of the field, such as `adapter.config.baseUrl` or `additional_domains.0`. */
  field: string;
  /** A sentence naming the field. */
  message: string;
}

/** A problem, and whether it breaks a business rule (422) rather than the shape (400). */
export interface Problem extends FieldError {
  businessRule: boolean;
  /** Extra details the answer carries when this problem is the first one. */
  details?: Record<string, unknown>;
}

/**
 * One ServiceError for a list of problems (shape problems first): 422 validation_failed when every
 * problem is a business rule, else 400 invalid_request; `details.field` is the first problem's,
 * `details.errors` lists them all.
 */
export function problemsError(problems: readonly Problem[]): ServiceError {
  const ordered = [
    ...problems.filter((p) => !p.businessRule),
    ...problems.filter((p) => p.businessRule),
  ];
  const [first] = ordered;
  if (first === undefined) return serviceErrors.invalidRequest("The body is invalid");
  const list = ordered.map(({ field, message }) => ({ field, message }));
  const more = ordered.length - 1;
  const message =
    more === 0
      ? first.message
      : `${first.message} (and ${more} more ${more === 1 ? "problem" : "problems"})`;
  const details = { ...first.details, field: first.field, errors: list };
  return ordered.every((p) => p.businessRule)
    ? serviceErrors.validationFailed(message, details)
    : serviceErrors.invalidRequest(message, details);
}
