/**
 * Whether an imported value is a plugin this host can use: its name, kind, apiVersion, create and
 * the optional parts, each checked with a message naming what is wrong, and its configSchema
 * compiled. Apart from the host so that the rules of a valid definition change in one place.
 */
import type { ValidateFunction } from "ajv";
import type { HostLogger } from "./logger.ts";
import { PluginLoadError } from "./plugin-errors.ts";
import { messageOf } from "../util/message-of.ts";
import { PLUGIN_API_VERSION, pluginKinds } from "./plugin.ts";
import type { PluginDefinition, PluginKind } from "./plugin.ts";
import { compileSchema } from "./plugin-config-schema.ts";
import { sourceLabel } from "./plugin-source.ts";

/** A plugin the host accepted. */
export interface RegisteredPlugin {
  readonly name: string;
  readonly kind: PluginKind;
  readonly type?: string;
  /** `builtin:<folder>`, `npm:<package>` or the label given to `register`. */
  readonly source: string;
  readonly definition: PluginDefinition;
}

/** A definition that passed the checks, with its schemas compiled (those it has). */
export interface CheckedPlugin extends RegisteredPlugin {
  validate: ValidateFunction | undefined;
  /**
   * A copy of `config` with the configSchema's `default`s filled in (the config itself when the
   * plugin has no configSchema). What fills them is compiled on first use: only adapters' configs
   * are stored in sites, and start-up need not pay for it.
   */
  withDefaults(config: unknown): unknown;
  /** An adapter's collectionSchema, compiled. */
  validateCollection: ValidateFunction | undefined;
}

const namePattern = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/** The plugin `value` defines; throws PluginLoadError when it is not a usable plugin. */
export function checkDefinition(value: unknown, source: string, logger: HostLogger): CheckedPlugin {
  if (typeof value !== "object" || value === null) {
    throw new PluginLoadError(
      `${sourceLabel(source)}: default export is not a plugin definition (got ${show(value)})`,
      { source },
    );
  }
  const d = value as Partial<Record<keyof PluginDefinition, unknown>>;
  const name = typeof d.name === "string" && namePattern.test(d.name) ? d.name : undefined;
  const label = name === undefined ? sourceLabel(source) : `plugin "${name}"`;
  const fail = (message: string, cause?: unknown) =>
    new PluginLoadError(`${label}: ${message}`, { source, plugin: name, cause });

  if (!pluginKinds.includes(d.kind as PluginKind)) {
    throw fail(`kind ${show(d.kind)} is not one of ${pluginKinds.join(", ")}`);
  }
  if (name === undefined) throw fail(`name ${show(d.name)} is not a valid npm package name`);
  if (d.apiVersion !== PLUGIN_API_VERSION) {
    throw fail(
      `apiVersion ${show(d.apiVersion)} is not supported by this host (it speaks ${PLUGIN_API_VERSION})`,
    );
  }
  if (typeof d.create !== "function") throw fail(`create ${show(d.create)} is not a function`);
  if (d.destination !== undefined && typeof d.destination !== "function") {
    throw fail(`destination ${show(d.destination)} is not a function`);
  }
  if (
    d.voices !== undefined &&
    (!Array.isArray(d.voices) || !d.voices.every((v) => typeof v === "string" && v !== ""))
  ) {
    throw fail(`voices ${show(d.voices)} is not a list of voice names`);
  }
  if (d.type !== undefined && (typeof d.type !== "string" || d.type === "")) {
    throw fail(`type ${show(d.type)} is not a non-empty string`);
  }
  if (d.oauth !== undefined) {
    const problem = oauthProblem(d.kind as PluginKind, d.oauth);
    if (problem !== undefined) throw fail(`oauth ${problem}`);
  }
  const compiled = (member: "configSchema" | "collectionSchema") => {
    const schema = d[member];
    if (schema === undefined) return undefined;
    if (typeof schema !== "object" || schema === null) {
      throw fail(`${member} ${show(schema)} is not a JSON Schema object`);
    }
    try {
      return compileSchema(schema, logger.child({ plugin: name }));
    } catch (error) {
      throw fail(`${member} does not compile: ${messageOf(error)}`, error);
    }
  };
  const definition = value as PluginDefinition;
  let fill: ValidateFunction | undefined;
  const withDefaults = (config: unknown) => {
    if (definition.configSchema === undefined) return config;
    // Not strict: a `default` at the root, which strict mode refuses when filling, is ignored.
    fill ??= compileSchema(definition.configSchema, logger.child({ plugin: name }), {
      useDefaults: true,
      strictSchema: false,
    });
    const copy = structuredClone(config);
    fill(copy);
    return copy;
  };
  return {
    name,
    kind: definition.kind,
    type: definition.type,
    source,
    definition,
    validate: compiled("configSchema"),
    withDefaults,
    validateCollection: compiled("collectionSchema"),
  };
}

/** What is wrong with an `oauth` block (oauth-contract.ts), or undefined. */
function oauthProblem(kind: PluginKind, oauth: unknown): string | undefined {
  if (kind !== "adapter") return "is for adapters only";
  if (typeof oauth !== "object" || oauth === null) return `${show(oauth)} is not an object`;
  const block = oauth as Record<string, unknown>;
  for (const field of ["authorizationUrl", "tokenUrl", "revocationUrl"]) {
    const url = block[field];
    if (url === undefined && field === "revocationUrl") continue;
    if (typeof url !== "string" || !URL.canParse(url)) return `.${field} ${show(url)} is not a URL`;
  }
  const scopes = block.scopes;
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === "string" && /^\S+$/.test(s))) {
    return `.scopes ${show(scopes)} is not a list of scope names`;
  }
  const methods = ["client_secret_basic", "client_secret_post", "none"];
  const method = block.clientAuthentication;
  if (method !== undefined && !methods.includes(method as string)) {
    return `.clientAuthentication ${show(method)} is not one of ${methods.join(", ")}`;
  }
  return undefined;
}

function show(value: unknown): string {
  if (value === undefined) return "(missing)";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) {
    return String(value);
  }
  return `(${Array.isArray(value) ? "array" : typeof value})`;
}
