/**
 * A plugin's schemas: compiled when the plugin registers (the one filling defaults on first use),
 * then used to tell a site owner where their config for the plugin is wrong, by a field path they
 * can find in their YAML.
 * Kept apart from the definition checks because it changes with Ajv and with how issues read.
 */
import { Ajv } from "ajv";
import type { ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import type { Logger } from "./logger.ts";
import { addCustomFormats } from "../validation/formats.ts";
import type { Problem } from "../validation/problems-error.ts";
import { addErrorAnnotations, toProblems } from "../validation/to-problems.ts";
import type { PluginConfigIssue } from "./plugin-errors.ts";

/**
 * Draft-07 when the schema says so, else 2020-12. Each plugin gets its own ajv so that two plugins
 * using the same `$id` cannot collide or reach into each other's schemas.
 */
export function compileSchema(
  schema: object,
  logger: Logger,
  {
    useDefaults = false,
    strictSchema = true,
  }: { useDefaults?: boolean; strictSchema?: boolean } = {},
): ValidateFunction {
  const { $schema } = schema as { $schema?: unknown };
  const draft07 = typeof $schema === "string" && $schema.includes("json-schema.org/draft-07/");
  const options = {
    allErrors: true,
    // Errors then carry `parentSchema`, where the x-error-* annotations are read.
    verbose: true,
    useDefaults,
    strictSchema,
    logger: {
      log: (...args: unknown[]) => logger.debug(args.map(String).join(" ")),
      warn: (...args: unknown[]) => logger.warn(args.map(String).join(" ")),
      error: (...args: unknown[]) => logger.error(args.map(String).join(" ")),
    },
  };
  const ajv = draft07 ? new Ajv(options) : new Ajv2020(options);
  // CommonJS: the default import is module.exports, typed as the module; its `default` is the plugin.
  ajvFormats.default(ajv);
  addCustomFormats(ajv);
  // A plugin's schema may word its rules and mark business rules as the service's own do.
  addErrorAnnotations(ajv);
  return ajv.compile(schema);
}

/**
 * The ways `value` fails a compiled schema of a plugin, as the site rules report problems
 * (to-problems.ts: the same wording, `x-error-*` annotations honoured), each field under
 * `prefix` (such as `adapter.config`); empty when it passes or there is no schema.
 */
export function compiledProblems(
  validate: ValidateFunction | undefined,
  value: unknown,
  prefix: readonly string[],
): Problem[] {
  if (validate === undefined || validate(value)) return [];
  return toProblems(validate.errors ?? [], prefix);
}

/**
 * The ways `config` fails the plugin's compiled configSchema, each a sentence naming its field
 * under `config.` (the site rules' wording); empty when it passes or has none.
 */
export function configIssues(
  plugin: { readonly validate: ValidateFunction | undefined },
  config: unknown,
): PluginConfigIssue[] {
  return compiledProblems(plugin.validate, config, ["config"]).map(({ field, message }) => ({
    field,
    message,
  }));
}
