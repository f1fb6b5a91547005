/**
 * The configSchema of the built-in adapter plugins (REST, PostgreSQL, MySQL), taken from
 * schemas/site.schema.json so the site schema stays the one place their config is defined. The plugin host compiles each configSchema
 * with a strict Ajv of its own, which does not know the service's `x-` annotations, so they are
 * dropped here; they only shape error messages, which the site schema's validation gives first.
 */
import siteSchema from "../../schemas/site.schema.json" with { type: "json" };

type AdapterConfigDef = "RestAdapterConfig" | "PostgresAdapterConfig" | "MysqlAdapterConfig";

/** The keywords whose value is a map of names to subschemas, not a subschema itself. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs"]);

/**
 * A standalone JSON Schema (2020-12) of a site-schema definition. `optional` names required
 * fields that have a default: the host checks a config as written, before defaults are filled in.
 */
export function adapterConfigSchema(
  name: AdapterConfigDef,
  options: { optional?: string[] } = {},
): Record<string, unknown> {
  const definition = withoutAnnotations(siteSchema.$defs[name]) as Record<string, unknown>;
  const required = (definition.required as string[] | undefined)?.filter(
    (field) => !options.optional?.includes(field),
  );
  return { $schema: siteSchema.$schema, ...definition, ...(required ? { required } : {}) };
}

function withoutAnnotations(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutAnnotations);
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith("x-")) continue;
    // A $ref would point into the site schema, which the plugin's own Ajv does not hold.
    if (key === "$ref") throw new Error(`${key} ${String(value)} cannot leave the site schema`);
    if (key === "examples" || key === "default" || key === "const" || key === "enum") {
      out[key] = value;
    } else if (SCHEMA_MAPS.has(key) && typeof value === "object" && value !== null) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, withoutAnnotations(sub)]),
      );
    } else {
      out[key] = withoutAnnotations(value);
    }
  }
  return out;
}
