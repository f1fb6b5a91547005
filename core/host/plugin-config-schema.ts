/**
 * A plugin's `configSchema`: compiled once when the plugin registers, then used to tell a site
 * owner where their config for the plugin is wrong, by a field path they can find in their YAML.
 * Kept apart from the definition checks because it changes with Ajv and with how issues read.
 */
import { Ajv } from "ajv";
import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import type { Logger } from "pino";
import { addCustomFormats } from "../validation/formats.ts";
import type { PluginConfigIssue } from "./plugin-errors.ts";

/**
 * Draft-07 when the schema says so, else 2020-12. Each plugin gets its own ajv so that two plugins
 * using the same `$id` cannot collide or reach into each other's schemas.
 */
export function compileSchema(schema: object, logger: Logger): ValidateFunction {
  const { $schema } = schema as { $schema?: unknown };
  const draft07 = typeof $schema === "string" && $schema.includes("json-schema.org/draft-07/");
  const options = {
    allErrors: true,
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
  return ajv.compile(schema);
}

/** The ways `config` fails the plugin's compiled configSchema; empty when it passes or has none. */
export function configIssues(
  plugin: { readonly validate: ValidateFunction | undefined },
  config: unknown,
): PluginConfigIssue[] {
  if (!plugin.validate || plugin.validate(config)) return [];
  return (plugin.validate.errors ?? []).map(toIssue);
}

/** Turns an ajv error into a field path a site owner can find in their YAML. */
function toIssue(error: ErrorObject): PluginConfigIssue {
  const path = error.instancePath
    .split("/")
    .slice(1)
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"));
  const field = (...parts: unknown[]) => ["config", ...path, ...parts].join(".");
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required")
    return { field: field(params.missingProperty), message: "is required" };
  const extra = params.additionalProperty ?? params.unevaluatedProperty;
  if (extra !== undefined) return { field: field(extra), message: "is not allowed" };
  return { field: field(), message: error.message ?? "is invalid" };
}
