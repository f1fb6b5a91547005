/**
 * Validates request bodies and site configs against the JSON Schemas in schemas/, the source of
 * truth for their shape, and turns Ajv's errors into one ServiceError naming the field (worded
 * by to-problems.ts, made by problems-error.ts).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Options, SchemaObject, ValidateFunction } from "ajv";
import ajvFormats from "ajv-formats";
import { addCustomFormats } from "./formats.ts";
import { problemsError, type Problem } from "./problems-error.ts";
import { addErrorAnnotations, toProblems } from "./to-problems.ts";
import apiKeyCreateSchema from "../../schemas/api-key-create.schema.json" with { type: "json" };
import siteCreateSchema from "../../schemas/site-create.schema.json" with { type: "json" };
import sitePatchSchema from "../../schemas/site-patch.schema.json" with { type: "json" };
import siteSchema from "../../schemas/site.schema.json" with { type: "json" };
import searchParamsSchema from "../../schemas/search-params.schema.json" with { type: "json" };
import usageEventWriteSchema from "../../schemas/usage-event-write.schema.json" with { type: "json" };
import usageEventBatchSchema from "../../schemas/usage-event-batch.schema.json" with { type: "json" };
import leadCreateSchema from "../../schemas/lead-create.schema.json" with { type: "json" };
import transcriptCreateSchema from "../../schemas/transcript-create.schema.json" with { type: "json" };
import tokenCreateSchema from "../../schemas/token-create.schema.json" with { type: "json" };
import sessionResumeSchema from "../../schemas/session-resume.schema.json" with { type: "json" };
import sessionCallSchema from "../../schemas/session-call.schema.json" with { type: "json" };
import authSignupSchema from "../../schemas/auth-signup.schema.json" with { type: "json" };
import authSigninSchema from "../../schemas/auth-signin.schema.json" with { type: "json" };
import authMagicLinkSchema from "../../schemas/auth-magic-link.schema.json" with { type: "json" };
import authVerifySchema from "../../schemas/auth-verify.schema.json" with { type: "json" };
import authSetupSchema from "../../schemas/auth-setup.schema.json" with { type: "json" };
import authAcceptSchema from "../../schemas/auth-accept.schema.json" with { type: "json" };
import workspaceInvitationSchema from "../../schemas/workspace-invitation.schema.json" with { type: "json" };
import userDataRequestSchema from "../../schemas/user-data-request.schema.json" with { type: "json" };
import webhookCreateSchema from "../../schemas/webhook-create.schema.json" with { type: "json" };
import webhookPatchSchema from "../../schemas/webhook-patch.schema.json" with { type: "json" };
import oauthStartSchema from "../../schemas/oauth-start.schema.json" with { type: "json" };
import knowledgeSearchSchema from "../../schemas/knowledge-search.schema.json" with { type: "json" };

const schemas = {
  site: siteSchema,
  "site-create": siteCreateSchema,
  "site-patch": sitePatchSchema,
  "api-key-create": apiKeyCreateSchema,
  "search-params": searchParamsSchema,
  "usage-event-write": usageEventWriteSchema,
  "usage-event-batch": usageEventBatchSchema,
  "lead-create": leadCreateSchema,
  "transcript-create": transcriptCreateSchema,
  "token-create": tokenCreateSchema,
  "session-resume": sessionResumeSchema,
  "session-call": sessionCallSchema,
  "user-data-request": userDataRequestSchema,
  "workspace-invitation": workspaceInvitationSchema,
  "auth-accept": authAcceptSchema,
  "auth-setup": authSetupSchema,
  "auth-verify": authVerifySchema,
  "auth-magic-link": authMagicLinkSchema,
  "auth-signin": authSigninSchema,
  "auth-signup": authSignupSchema,
  "webhook-create": webhookCreateSchema,
  "webhook-patch": webhookPatchSchema,
  "oauth-start": oauthStartSchema,
  "knowledge-search": knowledgeSearchSchema,
} as const satisfies Record<string, SchemaObject>;

/** Names of the schemas in schemas/, each file being `<name>.schema.json`. */
export type SchemaName = keyof typeof schemas;
export const schemaNames = Object.keys(schemas) as SchemaName[];

/** The JSON Schema of `name`, as schemas/ holds it (for documents made from it; never changed). */
export const schemaOf = (name: SchemaName): Readonly<SchemaObject> => schemas[name];

/**
 * A patch must not gain defaults: a field left out means "keep the stored value", so filling it in
 * would silently reset settings. Its data is validated on a copy and returned as sent.
 */
const schemasWithoutDefaults: ReadonlySet<SchemaName> = new Set(["site-patch"]);

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
  addErrorAnnotations(ajv);
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
