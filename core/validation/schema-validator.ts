/**
 * Validates request bodies and site configs against the JSON Schemas in schemas/, the source of
 * truth for their shape, and turns Ajv's errors into one ServiceError naming the field.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, Options, SchemaObject, ValidateFunction } from "ajv";
import ajvFormats from "ajv-formats";
import { addCustomFormats } from "./formats.ts";
import { errors as serviceErrors } from "../errors.ts";
import type { ServiceError } from "../errors.ts";
import apiKeyCreateSchema from "../../schemas/api-key-create.schema.json" with { type: "json" };
import siteCreateSchema from "../../schemas/site-create.schema.json" with { type: "json" };
import sitePatchSchema from "../../schemas/site-patch.schema.json" with { type: "json" };
import siteSchema from "../../schemas/site.schema.json" with { type: "json" };
import searchParamsSchema from "../../schemas/search-params.schema.json" with { type: "json" };
import usageEventWriteSchema from "../../schemas/usage-event-write.schema.json" with { type: "json" };
import leadCreateSchema from "../../schemas/lead-create.schema.json" with { type: "json" };
import transcriptCreateSchema from "../../schemas/transcript-create.schema.json" with { type: "json" };
import tokenCreateSchema from "../../schemas/token-create.schema.json" with { type: "json" };

const schemas = {
  site: siteSchema,
  "site-create": siteCreateSchema,
  "site-patch": sitePatchSchema,
  "api-key-create": apiKeyCreateSchema,
  "search-params": searchParamsSchema,
  "usage-event-write": usageEventWriteSchema,
  "lead-create": leadCreateSchema,
  "transcript-create": transcriptCreateSchema,
  "token-create": tokenCreateSchema,
} as const satisfies Record<string, SchemaObject>;

/** Names of the schemas in schemas/, each file being `<name>.schema.json`. */
export type SchemaName = keyof typeof schemas;
export const schemaNames = Object.keys(schemas) as SchemaName[];

/**
 * A patch must not gain defaults: a field left out means "keep the stored value", so filling it in
 * would silently reset settings. Its data is validated on a copy and returned as sent.
 */
const schemasWithoutDefaults: ReadonlySet<SchemaName> = new Set(["site-patch"]);

/** The annotation marking a subschema whose failure is a business rule (422), not a shape error. */
const ERROR_CODE_KEYWORD = "x-error-code";
/** The annotation giving the readable meaning of a `pattern` or `format`, for error messages. */
const ERROR_MESSAGE_KEYWORD = "x-error-message";

/**
 * Builds an Ajv instance that knows every schema of schemas/ by its `$id` and our annotations.
 * Exported so tests (and other validators of the same schemas) share the exact settings; tests
 * that compile a bare fragment with a `default` at its root need `{ strict: false }`, since strict
 * mode refuses a default Ajv would ignore.
 */
export function createSchemaAjv(overrides: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    // Errors then carry `parentSchema`, where the x-error-* annotations are read.
    verbose: true,
    useDefaults: true,
    strict: true,
    ...overrides,
  });
  // ajv-formats is CommonJS; under NodeNext its default import is typed as the module object.
  const addFormats = ajvFormats as unknown as typeof ajvFormats.default;
  addFormats(ajv);
  addCustomFormats(ajv);
  ajv.addKeyword({ keyword: ERROR_CODE_KEYWORD, schemaType: "string" });
  ajv.addKeyword({ keyword: ERROR_MESSAGE_KEYWORD, schemaType: "string" });
  for (const schema of Object.values(schemas)) ajv.addSchema(schema);
  return ajv;
}

const ajv = createSchemaAjv();
// Compiled at load so a schema that breaks strict mode fails at startup, not on a first request.
const validators = new Map<SchemaName, ValidateFunction>(
  schemaNames.map((name) => {
    const validate = ajv.getSchema(schemas[name].$id);
    if (validate === undefined) throw new Error(`Schema ${name} did not compile`);
    return [name, validate];
  }),
);

/** The schema as written in schemas/<name>.schema.json (for docs and tests; do not mutate). */
export function schemaFor(name: SchemaName): SchemaObject {
  return schemas[name];
}

/**
 * Validates `data` against schemas/<name>.schema.json and returns it, with defaults filled in
 * (except for `site-patch`, returned as sent). Throws a ServiceError: 422 validation_failed when
 * every problem is a business rule (a subschema marked `x-error-code: validation_failed`), else
 * 400 invalid_request; `details` holds `field` (the first problem's dotted path) and `errors`
 * (`{field, message}` for each problem).
 *
 * Defaults are written into `data` itself, so pass a value you own (a freshly parsed body or a
 * copy), never a shared or frozen object.
 */
export function validateBody<T>(schemaName: SchemaName, data: unknown): T {
  const problems = schemaProblems(schemaName, data);
  if (problems.length > 0) throw problemsError(problems);
  return data as T;
}

/**
 * Every way `data` fails schemas/<name>.schema.json, as validateBody would report them (noise
 * removed, shape problems first); empty when it passes. Fills in defaults as validateBody does.
 */
export function schemaProblems(schemaName: SchemaName, data: unknown): Problem[] {
  const withDefaults = !schemasWithoutDefaults.has(schemaName);
  const target = withDefaults ? data : structuredClone(data);
  if (withDefaults) fillTopLevelDefaults(schemaName, target);
  const validate = validators.get(schemaName);
  if (validate === undefined) throw new Error(`Unknown schema ${schemaName}`);
  return validate(target) ? [] : toProblems(validate.errors ?? []);
}

/**
 * Ajv fills a default only from a `default` written beside the property, not through a `$ref`, and
 * request schemas reuse site.schema.json's fields by `$ref` so nothing is written twice. Their
 * top-level defaults are therefore those of the SiteConfig, filled in here before validation
 * (which then fills nested ones, such as `appearance.size`).
 */
const topLevelDefaultsFrom: Partial<Record<SchemaName, SchemaName>> = { "site-create": "site" };

function fillTopLevelDefaults(name: SchemaName, data: unknown): void {
  const source = topLevelDefaultsFrom[name];
  if (source === undefined) return;
  if (typeof data !== "object" || data === null || Array.isArray(data)) return;
  const record = data as Record<string, unknown>;
  const accepted = (schemas[name].properties ?? {}) as Record<string, unknown>;
  const properties = (schemas[source].properties ?? {}) as Record<string, SchemaObject>;
  for (const [key, property] of Object.entries(properties)) {
    if (key in accepted && property.default !== undefined && record[key] === undefined) {
      record[key] = structuredClone(property.default);
    }
  }
}

/** One problem with a body, as listed in `error.details.errors`. */
export interface FieldError {
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

function toProblems(ajvErrors: ErrorObject[]): Problem[] {
  // A value that must be null or an Adapter, given a number, is told both options.
  const otherBranchTypes = new Map<string, string[]>();
  for (const error of ajvErrors) {
    if (!isBranchTypeMismatch(error) || !isNoise(error, ajvErrors)) continue;
    const types = otherBranchTypes.get(error.instancePath) ?? [];
    otherBranchTypes.set(error.instancePath, [...types, ...typesOf(error)]);
  }
  const meaningful = ajvErrors.filter((error) => !isNoise(error, ajvErrors));
  let problems = meaningful.map((error) =>
    toProblem(error, otherBranchTypes.get(error.instancePath) ?? []),
  );
  // A business rule only means something for a well-formed value: when the same field also breaks
  // a shape rule, report the shape alone (so `ftp://x` is a 400, not also "must use https").
  const malformed = new Set(problems.filter((p) => !p.businessRule).map((p) => p.field));
  problems = problems.filter((p) => !(p.businessRule && malformed.has(p.field)));
  const seen = new Set<string>();
  problems = problems.filter((p) => {
    const key = `${p.field}\n${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // When the answer is 400, its message and `field` should be about a shape problem.
  return [...problems.filter((p) => !p.businessRule), ...problems.filter((p) => p.businessRule)];
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

function toProblem(error: ErrorObject, otherBranchTypes: string[]): Problem {
  const segments = error.instancePath
    .split("/")
    .slice(1)
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
  const parent = segments.join(".");
  const params = error.params as Record<string, unknown>;
  let field = parent;
  let subject = parent === "" ? "The body" : parent;
  if (error.keyword === "required") field = join(parent, String(params.missingProperty));
  else if (error.keyword === "additionalProperties") {
    field = join(parent, String(params.additionalProperty));
  } else if (error.propertyName !== undefined) {
    // A map key (collection name, header name) broke the propertyNames rule.
    field = join(parent, error.propertyName);
    subject = `The name "${error.propertyName}" in ${parent === "" ? "the body" : parent}`;
  }
  if (error.keyword === "required" || error.keyword === "additionalProperties") subject = field;

  const parentSchema = (error.parentSchema ?? {}) as Record<string, unknown>;
  return {
    field,
    message: `${subject} ${describe(error, params, parentSchema, otherBranchTypes)}`,
    businessRule: parentSchema[ERROR_CODE_KEYWORD] === "validation_failed",
  };
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
    !["required", "additionalProperties"].includes(error.keyword) &&
    (error.keyword !== "type" || isRule)
  ) {
    return custom;
  }
  switch (error.keyword) {
    case "required":
      return "is required";
    case "additionalProperties":
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
