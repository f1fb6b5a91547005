/**
 * Loads and checks plugins, and keeps their instances: one per scope, plugin and config hash.
 * Instances leave the host behind a guard that turns any failure into a PluginCallError, so a
 * plugin never takes the service down.
 *
 * The host is the registry and the one door to it: which plugins exist, what their status is, and
 * when registration ends. What a valid definition is (check-definition.ts), where plugins come
 * from (plugin-source.ts), how their instances live and end (plugin-instances.ts) and the guard
 * they wear (guard-instance.ts) are modules of their own.
 */
import type { HostLogger } from "./logger.ts";
import { PluginCreateError, PluginLoadError } from "./plugin-errors.ts";
import { messageOf } from "../util/message-of.ts";
import type { PluginConfigIssue } from "./plugin-errors.ts";
import type { InstanceByKind, PluginKind } from "./plugin.ts";
import { checkDefinition } from "./check-definition.ts";
import type { RegisteredPlugin } from "./check-definition.ts";
import { configIssues, compiledProblems } from "./plugin-config-schema.ts";
import type { Problem } from "../validation/problems-error.ts";
import { PluginInstances, type ScopedInstanceLimits } from "./plugin-instances.ts";
import { pluginNetwork } from "./plugin-network.ts";
import type { PluginNetwork } from "./plugin-network.ts";
import { builtinModules, importDefault } from "./plugin-source.ts";
import { summarize } from "./plugin-status.ts";
import type { PluginSummary, Registration } from "./plugin-status.ts";
import type { OutboundPolicy } from "../security/outbound-policy.ts";
import type { OAuthAccessFor } from "./plugin-instances.ts";

export interface PluginHostOptions {
  logger: HostLogger;
  /**
   * Where plugins may connect: an OutboundPolicy, from which the host makes `context.fetch`
   * (guardedFetch) and `context.socket` (guardedSocket); or both made elsewhere (tests hand in
   * stand-ins). Required, so that every host, a test's included, says which policy it uses.
   */
  outbound: OutboundPolicy | PluginNetwork;
  /** Handed to plugins as `context.now`; tests pass a fake clock. */
  now?: () => number;
  /** The bound on site-scoped instances (see plugin-instances.ts); defaults otherwise. */
  instanceLimits?: ScopedInstanceLimits;
  /**
   * The `context.oauth` of an instance of an adapter that declares `oauth`, for its scope (a
   * site) and config: the service's token keeper (core/oauth/), or a test's fixed token.
   */
  oauthAccess?: OAuthAccessFor;
}

/** The kinds that serve the whole service rather than one site. */
const globalKinds: readonly PluginKind[] = ["event-sink", "auth", "prompt-template"];

export class PluginHost {
  readonly #logger: HostLogger;
  readonly #network: PluginNetwork;
  #closing: Promise<void> | undefined;
  readonly #plugins = new Map<string, Registration>();
  readonly #instances: PluginInstances;
  #started = false;

  constructor(options: PluginHostOptions) {
    this.#logger = options.logger;
    this.#network = pluginNetwork(options.outbound);
    this.#instances = new PluginInstances({
      logger: options.logger,
      network: this.#network,
      now: options.now ?? Date.now,
      limits: options.instanceLimits,
      oauthAccess: options.oauthAccess,
    });
  }

  /**
   * Gives OAuth adapters' instances their `context.oauth` from now on: the service's token keeper,
   * which needs the store and the events made after the host.
   */
  provideOAuth(access: OAuthAccessFor): void {
    this.#instances.oauthAccess = access;
  }

  /** How many site-scoped instances are live (bounded by `instanceLimits`). */
  get scopedInstanceCount(): number {
    return this.#instances.scopedCount;
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
    this.#plugins.set(name, {
      ...plugin,
      status: "registered",
      error: undefined,
      usedFor: undefined,
    });
  }

  /**
   * Registers `<dir>/<folder>/index.ts` (or `index.js` in the compiled build) of every folder; a
   * missing `dir` holds no plugins.
   */
  async loadBuiltins(dir: string): Promise<void> {
    for await (const { specifier, source } of builtinModules(dir)) {
      this.register(await importDefault(specifier, source), source);
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
    return [...this.#plugins.values()].map(summarize);
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
   * A copy of `config` with the `default`s of the plugin's configSchema filled in, as the site
   * schema's own defaults are (filled in whether or not the rest is valid); `config` itself when
   * no plugin serves `typeOrName` or it has no configSchema.
   */
  configWithDefaults(kind: PluginKind, typeOrName: string, config: unknown): unknown {
    return this.#find(kind, typeOrName)?.withDefaults(config) ?? config;
  }

  /**
   * The problems of a site's `config` for the plugin (its configSchema), worded as the site
   * rules word every problem, each field under `prefix` (`adapter.config`).
   */
  configProblems(
    kind: PluginKind,
    typeOrName: string,
    config: unknown,
    prefix: readonly string[],
  ): Problem[] {
    return compiledProblems(this.#require(kind, typeOrName).validate, config, prefix);
  }

  /**
   * The problems of one collection for an adapter plugin that restricts its collections (its
   * collectionSchema: the SQL adapters take only table names as `source`), fields under `prefix`.
   */
  collectionProblems(
    typeOrName: string,
    collection: unknown,
    prefix: readonly string[],
  ): Problem[] {
    const plugin = this.#require("adapter", typeOrName);
    return compiledProblems(plugin.validateCollection, collection, prefix);
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
    return (await this.#instances.get(plugin, config, scope)) as InstanceByKind[K];
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
        await this.#instances.get(plugin, configs[name] ?? {}, "global");
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
    return this.#instances.globals(kind).map(({ instance }) => instance);
  }

  /**
   * The first live global instance of `kind` that `serves` takes, which the caller uses for
   * `purpose` (in words, for people: "the dashboard's sign-in"). `list()` reports its plugin as
   * active for that; of a kind the service uses only through such a pick (auth), the others are
   * reported unused, since nothing calls them.
   */
  useGlobal<K extends PluginKind>(
    kind: K,
    serves: (instance: InstanceByKind[K]) => boolean,
    purpose: string,
  ): InstanceByKind[K] | undefined {
    const picked = this.#instances.globals(kind).find(({ instance }) => serves(instance));
    if (picked === undefined) return undefined;
    picked.plugin.usedFor = purpose;
    return picked.instance;
  }

  /** Ends registration: plugins are fixed once instances may exist. */
  start(): void {
    this.#started = true;
  }

  /**
   * Closes every instance, newest first (a failing close is logged and the rest go on), then the
   * connections the plugins' fetch kept alive.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#instances.close();
      await this.#network.close?.();
    })();
    return this.#closing;
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
}
