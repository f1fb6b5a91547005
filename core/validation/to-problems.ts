/**
 * Turns Ajv's errors into problems a person can act on: the noise Ajv adds beside a real failure
 * dropped (`if`, `propertyNames`, the branches of `anyOf`), each left one named by its dotted field
 * with a sentence saying what the value must be, our `x-error-*` annotations applied. Apart from
 * the validator, which only decides what is validated against which schema.
 */
import type { Ajv, ErrorObject } from "ajv";
import type { Problem } from "./problems-error.ts";

/** The annotation marking a subschema whose failure is a business rule (422), not a shape error. */
const ERROR_CODE_KEYWORD = "x-error-code";
/** The annotation giving the readable meaning of a `pattern` or `format`, for error messages. */
const ERROR_MESSAGE_KEYWORD = "x-error-message";

/**
 * Teaches `ajv` the annotations, so strict mode takes them and a schema misusing one does not
 * compile: `x-error-message` is text, and `validation_failed` is the one `x-error-code` (the
 * others are decided by the service, not a schema).
 */
export function addErrorAnnotations(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: ERROR_CODE_KEYWORD,
    schemaType: "string",
    metaSchema: { enum: ["validation_failed"] },
  });
  ajv.addKeyword({ keyword: ERROR_MESSAGE_KEYWORD, schemaType: "string" });
}

/**
 * The problems of a failed validation, noise removed, shape problems first; their fields under
 * `prefix` when the value validated sits inside a larger document (a plugin's config inside a
 * site: `["adapter", "config"]`).
 */
export function toProblems(ajvErrors: ErrorObject[], prefix: readonly string[] = []): Problem[] {
  // A value that must be null or an Adapter, given a number, is told both options.
  const otherBranchTypes = new Map<string, string[]>();
  for (const error of ajvErrors) {
    if (!isBranchTypeMismatch(error) || !isNoise(error, ajvErrors)) continue;
    const types = otherBranchTypes.get(error.instancePath) ?? [];
    otherBranchTypes.set(error.instancePath, [...types, ...typesOf(error)]);
  }
  const meaningful = ajvErrors.filter((error) => !isNoise(error, ajvErrors));
  let problems = meaningful.map((error) =>
    toProblem(error, otherBranchTypes.get(error.instancePath) ?? [], prefix),
  );
  // A business rule only means something for a well-formed value: when the same field also breaks
  // a shape rule, report the shape alone (so `ftp://x` is a 400, not also "must use https").
  const malformed = new Set(problems.filter((p) => p.kind === "shape").map((p) => p.field));
  problems = problems.filter((p) => !(p.kind === "rule" && malformed.has(p.field)));
  const seen = new Set<string>();
  problems = problems.filter((p) => {
    const key = `${p.field}\n${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // When the answer is 400, its message and `field` should be about a shape problem.
  return [
    ...problems.filter((p) => p.kind === "shape"),
    ...problems.filter((p) => p.kind === "rule"),
  ];
}

/**
 * Errors that only repeat others: `if` reports "must match then schema" beside the real failure,
 * `propertyNames` beside the failing name, and `anyOf` beside the failures of its branches (a
 * branch failing on `type` only says the value was meant for another branch).
 */
function isNoise(error: ErrorObject, all: ErrorObject[]): boolean {
  if (error.keyword === "if" || error.keyword === "propertyNames") return true;
  if (!isBranchWrapper(error) && !isBranchTypeMismatch(error)) return false;
  return all.some(
    (other) =>
      !isBranchWrapper(other) &&
      !isBranchTypeMismatch(other) &&
      isAtOrBelow(other.instancePath, error.instancePath),
  );
}

function isBranchWrapper(error: ErrorObject): boolean {
  return error.keyword === "anyOf" || error.keyword === "oneOf";
}

function isBranchTypeMismatch(error: ErrorObject): boolean {
  return error.keyword === "type" && /\/(anyOf|oneOf)\/\d+\/type$/.test(error.schemaPath);
}

function typesOf(error: ErrorObject): string[] {
  const { type } = error.params as { type?: unknown };
  return Array.isArray(type) ? type.map(String) : String(type).split(",");
}

function isAtOrBelow(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

function toProblem(
  error: ErrorObject,
  otherBranchTypes: string[],
  prefix: readonly string[],
): Problem {
  const segments = [
    ...prefix,
    ...error.instancePath
      .split("/")
      .slice(1)
      .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~")),
  ];
  const parent = segments.join(".");
  const params = error.params as Record<string, unknown>;
  let field = parent;
  let subject = parent === "" ? "The body" : parent;
  const extra = params.additionalProperty ?? params.unevaluatedProperty;
  if (error.keyword === "required") field = join(parent, String(params.missingProperty));
  else if (isUnknownField(error)) {
    field = join(parent, String(extra));
  } else if (error.propertyName !== undefined) {
    // A map key (collection name, header name) broke the propertyNames rule.
    field = join(parent, error.propertyName);
    subject = `The name "${error.propertyName}" in ${parent === "" ? "the body" : parent}`;
  }
  if (error.keyword === "required" || isUnknownField(error)) subject = field;

  const parentSchema = (error.parentSchema ?? {}) as Record<string, unknown>;
  return {
    field,
    message: `${subject} ${describe(error, params, parentSchema, otherBranchTypes)}`,
    kind: parentSchema[ERROR_CODE_KEYWORD] === "validation_failed" ? "rule" : "shape",
  };
}

/** A property the schema does not know: closed by additionalProperties or unevaluatedProperties. */
function isUnknownField(error: ErrorObject): boolean {
  return error.keyword === "additionalProperties" || error.keyword === "unevaluatedProperties";
}

function join(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

/** The predicate of the message: what the value must be. */
function describe(
  error: ErrorObject,
  params: Record<string, unknown>,
  parentSchema: Record<string, unknown>,
  otherBranchTypes: string[],
): string {
  const limit = Number(params.limit);
  const custom = parentSchema[ERROR_MESSAGE_KEYWORD];
  // A subschema's own words for its rule win, except for the keywords about other fields and a
  // plain type mismatch (the shape is wrong, not the rule) outside a business-rule subschema.
  const isRule = parentSchema[ERROR_CODE_KEYWORD] !== undefined;
  if (
    typeof custom === "string" &&
    error.keyword !== "required" &&
    !isUnknownField(error) &&
    (error.keyword !== "type" || isRule)
  ) {
    return custom;
  }
  switch (error.keyword) {
    case "required":
      return "is required";
    case "additionalProperties":
    case "unevaluatedProperties":
      return "is not a known field";
    case "type": {
      const types = [...new Set([...typesOf(error), ...otherBranchTypes])];
      return `must be ${types.map((t) => typeNames[t] ?? t).join(" or ")}`;
    }
    case "const":
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case "enum":
      return `must be one of ${(params.allowedValues as unknown[]).map(String).join(", ")}`;
    case "pattern":
    case "format":
      if (typeof custom === "string") return custom;
      return error.keyword === "format"
        ? `must be a valid ${String(params.format)}`
        : `must match the pattern ${String(params.pattern)}`;
    case "minLength":
      return limit === 1 ? "must not be empty" : `must be at least ${limit} characters long`;
    case "maxLength":
      return `must be at most ${limit} characters long`;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `must be ${comparisons[String(params.comparison)] ?? String(params.comparison)} ${limit}`;
    case "minItems":
      return `must have at least ${plural(limit, "item")}`;
    case "maxItems":
      return `must have at most ${plural(limit, "item")}`;
    case "uniqueItems":
      return `must not contain duplicates (items ${String(params.j)} and ${String(params.i)} are equal)`;
    case "minProperties":
      return `must have at least ${plural(limit, "field")}`;
    case "maxProperties":
      return `must have at most ${plural(limit, "entry", "entries")}`;
    default:
      return error.message ?? "is invalid";
  }
}

const typeNames: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
  null: "null",
};

const comparisons: Record<string, string> = {
  ">=": "at least",
  "<=": "at most",
  ">": "greater than",
  "<": "less than",
};

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
