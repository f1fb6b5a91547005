/**
 * The REST adapter's configSchema: `$defs.RestAdapterConfig` of schemas/site.schema.json, the one
 * description of the config, made self-contained for the plugin host's own ajv. Two differences,
 * both because the host validates a config as written, before any defaults:
 * - the `x-error-*` annotations are dropped (the host's strict ajv does not know them; the site
 *   schema, checked first, still gives its readable messages);
 * - `queryMode` is optional, as its `default` says; the adapter reads a missing one as
 *   `querystring`. A site file that leaves it out must pass both checks.
 */
import siteSchema from "../../schemas/site.schema.json" with { type: "json" };

/** A deep copy of a schema without the keywords starting with `x-`. */
function withoutAnnotations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutAnnotations);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !key.startsWith("x-"))
      .map(([key, inner]) => [key, withoutAnnotations(inner)]),
  );
}

const definition = withoutAnnotations(siteSchema.$defs.RestAdapterConfig) as Record<
  string,
  unknown
>;

export const restConfigSchema: Record<string, unknown> = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  ...definition,
  required: (definition.required as string[]).filter((name) => name !== "queryMode"),
};
