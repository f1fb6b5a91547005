/**
 * A problem with a body or a site (its field, a sentence naming it, and its kind: the shape, a
 * business rule, or a conflict with what is stored), and the one ServiceError a list of them
 * becomes. Shared by the schema checks, the site rules and the sites' domain checks, so a change
 * that breaks several is answered with all of them at once.
 */
import { errors as serviceErrors } from "../errors.ts";
import type { ErrorDetails, ServiceError } from "../errors.ts";

/**
 * What a problem breaks, from the most basic: the shape a schema gives (400 invalid_request), a
 * business rule (422 validation_failed), or what is stored (409 conflict: a domain another site
 * of the workspace holds).
 */
export type ProblemKind = "shape" | "rule" | "conflict";

/** One problem with a body, as listed in `error.details.errors`. */
interface FieldError {
  /** Dotted path of the field, such as `adapter.config.baseUrl` or `additional_domains.0`. */
  field: string;
  /** A sentence naming the field, read alone (a list shows it without the field beside it). */
  message: string;
}

/** A problem, and what it breaks. */
export interface Problem extends FieldError {
  kind: ProblemKind;
  /** Extra details of this problem: in its entry of `details.errors`, and in `details` when first. */
  details?: Record<string, unknown>;
}

/** The kinds in the order they are listed, each with the error a list led by it becomes. */
const KINDS: readonly [ProblemKind, (message: string, details: ErrorDetails) => ServiceError][] = [
  ["shape", serviceErrors.invalidRequest],
  ["rule", serviceErrors.validationFailed],
  ["conflict", serviceErrors.conflict],
];

const CODES: Record<ProblemKind, string> = {
  shape: "invalid_request",
  rule: "validation_failed",
  conflict: "conflict",
};

/**
 * One ServiceError for a list of problems: listed by kind (shape, then rules, then conflicts),
 * answered with the error of the first kind present (400 invalid_request, else 422
 * validation_failed, else 409 conflict), so a problem the request has on its own comes before one
 * it has with what is stored. `details.field` and the message are the first problem's,
 * `details.errors` lists them all, each with its own `code` and details.
 */
export function problemsError(problems: readonly Problem[]): ServiceError {
  const ordered = KINDS.flatMap(([kind]) => problems.filter((p) => p.kind === kind));
  const [first] = ordered;
  if (first === undefined) return serviceErrors.invalidRequest("The body is invalid");
  const list = ordered.map(({ field, message, kind, details }) => ({
    ...details,
    field,
    message,
    code: CODES[kind],
  }));
  const more = ordered.length - 1;
  const message =
    more === 0
      ? first.message
      : `${first.message} (and ${more} more ${more === 1 ? "problem" : "problems"})`;
  const [, errorOf] = KINDS.find(([kind]) => kind === first.kind)!;
  return errorOf(message, { ...first.details, field: first.field, errors: list });
}
