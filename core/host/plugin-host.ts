/**
 * Loads and checks plugins, and keeps their instances: one per scope, plugin and config hash.
 * Instances leave the host behind a guard that turns any failure into a PluginCallError, so a
 * plugin never takes the service down.
 */
import { createHash } from "node:crypto";
import type { Socket } from "node:net";
import type { Dirent } from "node:fs";
import { access, readdir } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv } from "ajv";
import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import { addCustomFormats } from "../validation/formats.ts";
import type { Logger } from "pino";
import {
  PluginCallError,
  PluginConfigError,
  PluginCreateError,
  PluginLoadError,
  messageOf,
} from "./plugin-errors.ts";
import type { PluginConfigIssue } from "./plugin-errors.ts";
import { PLUGIN_API_VERSION, pluginKinds } from "./plugin.ts";
import type {
  InstanceByKind,
  PluginContext,
  PluginDefinition,
  PluginInstance,
  PluginKind,
} from "./plugin.ts";
import { stableJson } from "../util/stable-json.ts";
import { guardedFetch } from "../security/outbound-guard.ts";
import { guardedSocket } from "../security/guarded-socket.ts";
import { OutboundPolicy } from "../security/outbound-policy.ts";

export interface PluginHostOptions {
  logger: Logger;
  /**
   * Where plugins may connect: an OutboundPolicy, from which the host makes `context.fetch`
   * (guardedFetch) and `context.socket` (guardedSocket); or both made elsewhere (tests hand in
   * stand-ins). Required, so that every host, a test's included, says which policy it uses.
   */
  outbound: OutboundPolicy | PluginNetwork;
  /** Handed to plugins as `context.now`; tests pass a fake clock. */
  now?: () => number;
}

/** What plugins connect with: `context.fetch` and `context.socket`. */
export interface PluginNetwork {
  fetch: typeof fetch;
  socket: () => Socket;
}

/** A plugin the host accepted. */
export interface RegisteredPlugin {
  readonly name: string;
  readonly kind: PluginKind;
  readonly type?: string;
  /** `builtin:<folder>`, `npm:<package>` or the label given to `register`. */
  readonly source: string;
  readonly definition: PluginDefinition;
}

export type PluginStatus = "registered" | "active" | "unused" | "failed";

/** One row of `list()`, for the health and admin views. */
export interface PluginSummary {
  name: string;
  kind: PluginKind;
  type?: string;
  source: string;
  /**
   * "active" once an instance lives; "unused" when it lives but the service does not call its
   * kind yet (see UNUSED_KINDS); "failed" when its global instance could not be made.
   */
  status: PluginStatus;
  error?: string;
  /** Why an "unused" plugin is unused. */
  note?: string;
}

/**
 * Kinds the host loads and starts but the service does not call yet, and why: health says so
 * rather than "active", so an operator does not believe a plugin is at work.
 */
const UNUSED_KINDS: Partial<Record<PluginKind, string>> = {
  auth: "auth plugins are loaded but not called yet: the dashboard's sign-in will use them",
};

/** The kinds that serve the whole service rather than one site. */
const globalKinds: readonly PluginKind[] = ["event-sink", "auth", "prompt-template"];

const namePattern = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

interface Registration extends RegisteredPlugin {
  validate: ValidateFunction | undefined;
  status: PluginStatus;
  error: string | undefined;
}

/** The instance of one plugin in one scope, for one config hash. */
interface Slot {
  plugin: Registration;
  scope: string;
  hash: string;
  /** Resolves to the guarded instance; shared by concurrent callers. */
  ready: Promise<PluginInstance>;
  /** The plugin's own object, set once `create` returned; only the host calls its `close`. */
  instance?: PluginInstance;
  guarded?: PluginInstance;
}

export class PluginHost {
  readonly #logger: Logger;
  readonly #network: PluginNetwork;
  readonly #now: () => number;
  readonly #plugins = new Map<string, Registration>();
  /** Keyed by scope and plugin name: a scope holds one config of a plugin at a time. */
  readonly #slots = new Map<string, Slot>();
  /** Slots whose instance exists, in order of creation, so shutdown can go in reverse. */
  #created: Slot[] = [];
  #started = false;
  #closing: Promise<void> | undefined;

  constructor(options: PluginHostOptions) {
    this.#logger = options.logger;
    const { outbound } = options;
    this.#network =
      outbound instanceof OutboundPolicy
        ? { fetch: guardedFetch({ policy: outbound }), socket: () => guardedSocket(outbound) }
        : outbound;
    this.#now = options.now ?? Date.now;
  }

  /** Checks a definition and adds it; throws PluginLoadError when it is not a usable plugin. */
  register(definition: unknown, source: string): void {
    if (this.#started) {
      const name = (definition as { name?: unknown } | undefined)?.name;
      const label = typeof name === "string" ? name : source;
      throw new Error(`cannot register plugin ${label} after the host has started`);
    }
    const plugin = checkDefinition(definition, source, this.#logger);
    const { name, kind, type } = plugin;
    const fail = (message: string) =>
      new PluginLoadError(`plugin "${name}": ${message}`, { source, plugin: name });
    const sameName = this.#plugins.get(name);
    if (sameName) throw fail(`name is already registered (from ${sameName.source})`);
    const sameType = [...this.#plugins.values()].find(
      (p) => p.kind === kind && type !== undefined && p.type === type,
    );
    if (sameType) {
      throw fail(`type "${type}" is already served by ${kind} plugin "${sameType.name}"`);
    }
    this.#plugins.set(name, plugin);
  }

  /**
   * Registers `<dir>/<folder>/index.ts` (or `index.js` in the compiled build) of every folder; a
   * missing `dir` holds no plugins.
   */
  async loadBuiltins(dir: string): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name);
    for (const folder of folders.sort()) {
      const file = await firstExisting(["index.ts", "index.js"].map((n) => join(dir, folder, n)));
      if (file === undefined) continue;
      const source = `builtin:${folder}`;
      this.register(await importDefault(pathToFileURL(file).href, source), source);
    }
  }

  /** Imports each package by name, as Node resolves a bare specifier from the project. */
  async loadPackages(names: string[]): Promise<void> {
    for (const name of names) {
      const source = `npm:${name}`;
      this.register(await importDefault(name, source), source);
    }
  }

  /** The plugin of `kind` serving `typeOrName` as its `type`, else the one of that name. */
  find(kind: PluginKind, typeOrName: string): RegisteredPlugin | undefined {
    return this.#find(kind, typeOrName);
  }

  list(): PluginSummary[] {
    return [...this.#plugins.values()].map(({ name, kind, type, source, status, error }) => {
      const note = status === "active" ? UNUSED_KINDS[kind] : undefined;
      return note === undefined
        ? { name, kind, type, source, status, error }
        : { name, kind, type, source, status: "unused", error, note };
    });
  }

  /**
   * Where `config` sends its secrets, as the plugin says (see PluginDefinition.destination);
   * undefined when the plugin does not say, or fails to.
   */
  destination(kind: PluginKind, typeOrName: string, config: unknown): string | undefined {
    const plugin = this.#find(kind, typeOrName);
    if (plugin?.definition.destination === undefined) return undefined;
    try {
      return plugin.definition.destination(config as Record<string, unknown>);
    } catch (error) {
      this.#logger.warn({ err: error, plugin: plugin.name }, "destination() failed");
      return undefined;
    }
  }

  /** The ways `config` fails the plugin's configSchema; empty when it passes or has none. */
  validateConfig(kind: PluginKind, typeOrName: string, config: unknown): PluginConfigIssue[] {
    return configIssues(this.#require(kind, typeOrName), config);
  }

  /**
   * The instance of a plugin for `scope` and this config, made on first use. A new config for the
   * same scope and plugin closes the old instance first.
   */
  async instance<K extends PluginKind>(
    kind: K,
    typeOrName: string,
    config: unknown,
    scope: string,
  ): Promise<InstanceByKind[K]> {
    const plugin = this.#require(kind, typeOrName);
    return (await this.#instance(plugin, config, scope)) as InstanceByKind[K];
  }

  /**
   * Makes the global instance of every event-sink, auth and prompt-template plugin. One that
   * fails is marked "failed" and the others go on: a broken sink must not stop the service.
   */
  async startGlobal(
    configs: Record<string, unknown>,
    kinds: readonly PluginKind[] = globalKinds,
  ): Promise<void> {
    for (const plugin of this.#plugins.values()) {
      const { kind, name } = plugin;
      if (!globalKinds.includes(kind) || !kinds.includes(kind)) continue;
      try {
        await this.#instance(plugin, configs[name] ?? {}, "global");
      } catch (error) {
        plugin.status = "failed";
        plugin.error = messageOf(error);
        // A create failure was logged where it happened.
        if (!(error instanceof PluginCreateError)) {
          this.#logger.error({ err: error, plugin: name }, plugin.error);
        }
      }
    }
  }

  /** The live global instances of a kind, in order of registration. */
  globals<K extends PluginKind>(kind: K): InstanceByKind[K][] {
    return [...this.#slots.values()]
      .filter((s) => s.scope === "global" && s.plugin.kind === kind && s.guarded)
      .map((s) => s.guarded as InstanceByKind[K]);
  }

  /** Ends registration: plugins are fixed once instances may exist. */
  start(): void {
    this.#started = true;
  }

  /** Closes every instance, newest first; a failing close is logged and the rest go on. */
  close(): Promise<void> {
    this.#closing ??= this.#closeAll();
    return this.#closing;
  }

  async #closeAll(): Promise<void> {
    await Promise.allSettled([...this.#slots.values()].map((s) => s.ready));
    this.#slots.clear();
    const created = this.#created.toReversed();
    this.#created = [];
    for (const slot of created) await this.#closeSlot(slot);
  }

  #find(kind: PluginKind, typeOrName: string): Registration | undefined {
    const ofKind = [...this.#plugins.values()].filter((p) => p.kind === kind);
    return ofKind.find((p) => p.type === typeOrName) ?? ofKind.find((p) => p.name === typeOrName);
  }

  #require(kind: PluginKind, typeOrName: string): Registration {
    const plugin = this.#find(kind, typeOrName);
    if (!plugin) throw new Error(`no ${kind} plugin "${typeOrName}" is registered`);
    return plugin;
  }

  async #instance(plugin: Registration, config: unknown, scope: string): Promise<PluginInstance> {
    if (this.#closing) throw new Error("the plugin host is closed");
    const { name, kind } = plugin;
    const issues = configIssues(plugin, config);
    if (issues.length > 0) throw new PluginConfigError(name, issues);

    const key = `${scope}\u0000${name}`;
    const hash = configHash(config);
    let slot = this.#slots.get(key);
    if (slot?.hash !== hash) {
      const previous = slot;
      const next: Slot = {
        plugin,
        scope,
        hash,
        ready: this.#create(plugin, config, scope, previous).then((instance) => {
          next.instance = instance;
          next.guarded = guard(instance, name, kind);
          this.#created.push(next);
          return next.guarded;
        }),
      };
      // A failed create is not kept, so the next call tries again.
      next.ready.catch(() => {
        if (this.#slots.get(key) === next) this.#slots.delete(key);
      });
      this.#slots.set(key, next);
      slot = next;
    }
    return slot.ready;
  }

  async #create(
    plugin: Registration,
    config: unknown,
    scope: string,
    previous: Slot | undefined,
  ): Promise<PluginInstance> {
    if (previous) await this.#retire(previous);
    const { name } = plugin;
    const context: PluginContext = {
      logger: this.#logger.child({ plugin: name }),
      fetch: this.#network.fetch,
      socket: this.#network.socket,
      now: this.#now,
      scope,
    };
    let instance: unknown;
    try {
      instance = await plugin.definition.create(config as Record<string, unknown>, context);
      if (typeof instance !== "object" || instance === null) {
        throw new Error(`create returned ${instance === null ? "null" : typeof instance}`);
      }
    } catch (error) {
      const failure = new PluginCreateError(name, scope, error);
      this.#logger.error({ err: error, plugin: name, scope }, failure.message);
      throw failure;
    }
    plugin.status = "active";
    plugin.error = undefined;
    return instance;
  }

  /** Closes an instance replaced by a new config, once its own create has settled. */
  async #retire(slot: Slot): Promise<void> {
    await slot.ready.catch(() => undefined);
    const index = this.#created.indexOf(slot);
    if (index === -1) return;
    this.#created.splice(index, 1);
    await this.#closeSlot(slot);
  }

  async #closeSlot(slot: Slot): Promise<void> {
    try {
      await slot.instance?.close?.();
    } catch (error) {
      const plugin = slot.plugin.name;
      this.#logger.error(
        { err: error, plugin, scope: slot.scope },
        `plugin "${plugin}": close failed`,
      );
    }
  }
}

/**
 * Wraps an instance so that every method failure, sync or async, reaches the caller as a rejected
 * PluginCallError, and hides `close`: instances are shared, so only the host may end them.
 */
function guard(instance: PluginInstance, plugin: string, kind: PluginKind): PluginInstance {
  return new Proxy(instance, {
    get(target, property) {
      if (property === "close") return undefined;
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      const method = String(property);
      return (...args: unknown[]): unknown => {
        try {
          // Called on the target so that methods using private fields keep working.
          const result: unknown = value.apply(target, args);
          if (!isThenable(result)) return result;
          return Promise.resolve(result).catch((error: unknown) => {
            throw new PluginCallError(plugin, kind, method, error);
          });
        } catch (error) {
          return Promise.reject(new PluginCallError(plugin, kind, method, error));
        }
      };
    },
    has: (target, property) => property !== "close" && Reflect.has(target, property),
  });
}

function checkDefinition(value: unknown, source: string, logger: Logger): Registration {
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
  let validate: ValidateFunction | undefined;
  if (d.configSchema !== undefined) {
    if (typeof d.configSchema !== "object" || d.configSchema === null) {
      throw fail(`configSchema ${show(d.configSchema)} is not a JSON Schema object`);
    }
    try {
      validate = compileSchema(d.configSchema, logger.child({ plugin: name }));
    } catch (error) {
      throw fail(`configSchema does not compile: ${messageOf(error)}`, error);
    }
  }
  const definition = value as PluginDefinition;
  return {
    name,
    kind: definition.kind,
    type: definition.type,
    source,
    definition,
    validate,
    status: "registered",
    error: undefined,
  };
}

/**
 * Draft-07 when the schema says so, else 2020-12. Each plugin gets its own ajv so that two plugins
 * using the same `$id` cannot collide or reach into each other's schemas.
 */
function compileSchema(schema: object, logger: Logger): ValidateFunction {
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

function configIssues(plugin: Registration, config: unknown): PluginConfigIssue[] {
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

/** sha256 of the config as JSON with sorted keys, so key order in YAML does not matter. */
function configHash(config: unknown): string {
  return createHash("sha256")
    .update(stableJson(config) ?? "undefined")
    .digest("hex");
}

async function importDefault(specifier: string, source: string): Promise<unknown> {
  try {
    const module = (await import(specifier)) as { default?: unknown };
    return module.default;
  } catch (error) {
    throw new PluginLoadError(`${sourceLabel(source)} could not be imported: ${messageOf(error)}`, {
      source,
      cause: error,
    });
  }
}

/** Names a plugin whose definition gave no usable name, by where it came from. */
function sourceLabel(source: string): string {
  if (source.startsWith("npm:")) return `package "${source.slice(4)}"`;
  if (source.startsWith("builtin:")) return `built-in plugin "${source.slice(8)}"`;
  return `plugin from ${source}`;
}

function show(value: unknown): string {
  if (value === undefined) return "(missing)";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) {
    return String(value);
  }
  return `(${Array.isArray(value) ? "array" : typeof value})`;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as PromiseLike<unknown>).then === "function";

async function firstExisting(files: string[]): Promise<string | undefined> {
  for (const file of files) if (await exists(file)) return file;
  return undefined;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
