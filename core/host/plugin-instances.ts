/**
 * The live instances of the registered plugins: one per scope, plugin and config hash, made on
 * first use and shared by concurrent callers, replaced (the old one closed first) when the config
 * of a scope changes, and closed newest first on shutdown. The host decides which plugins exist;
 * this decides when their instances are made and ended.
 */
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { PluginConfigError, PluginCreateError } from "./plugin-errors.ts";
import {
  PLUGIN_CALL_DEADLINE_MS,
  type InstanceByKind,
  type PluginContext,
  type PluginInstance,
  type PluginKind,
} from "./plugin.ts";
import { guardInstance } from "./guard-instance.ts";
import { configIssues } from "./plugin-config-schema.ts";
import type { PluginNetwork } from "./plugin-network.ts";
import type { Registration } from "./plugin-status.ts";
import { stableJson } from "../util/stable-json.ts";

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

export class PluginInstances {
  readonly #logger: Logger;
  readonly #network: PluginNetwork;
  readonly #now: () => number;
  /** Keyed by scope and plugin name: a scope holds one config of a plugin at a time. */
  readonly #slots = new Map<string, Slot>();
  /**
   * The slot last made or found for a config object: a caller that hands the same object again
   * (the site cache holds one per site version) skips the schema check and the hash. Only objects
   * are remembered, weakly; a slot replaced since is not used.
   */
  readonly #byConfig = new WeakMap<object, Slot>();
  /** Slots whose instance exists, in order of creation, so shutdown can go in reverse. */
  #created: Slot[] = [];
  #closing: Promise<void> | undefined;

  /** `network` and `now` are handed to every plugin in its PluginContext. */
  constructor(options: { logger: Logger; network: PluginNetwork; now: () => number }) {
    this.#logger = options.logger;
    this.#network = options.network;
    this.#now = options.now;
  }

  /**
   * The guarded instance of `plugin` for `scope` and this config, made on first use; throws
   * PluginConfigError when the config fails the plugin's configSchema.
   */
  async get(plugin: Registration, config: unknown, scope: string): Promise<PluginInstance> {
    if (this.#closing) throw new Error("the plugin host is closed");
    const { name, kind } = plugin;
    const key = `${scope}\u0000${name}`;
    const known = isObject(config) ? this.#byConfig.get(config) : undefined;
    if (known !== undefined && known.plugin === plugin && this.#slots.get(key) === known) {
      return known.ready;
    }
    const issues = configIssues(plugin, config);
    if (issues.length > 0) throw new PluginConfigError(name, issues);

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
          next.guarded = guardInstance(instance, name, kind);
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
    if (isObject(config)) this.#byConfig.set(config, slot);
    return slot.ready;
  }

  /** The live global instances of a kind, in order of registration. */
  globals<K extends PluginKind>(kind: K): InstanceByKind[K][] {
    return [...this.#slots.values()]
      .filter((s) => s.scope === "global" && s.plugin.kind === kind && s.guarded)
      .map((s) => s.guarded as InstanceByKind[K]);
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
      request: this.#network.request,
      socket: this.#network.socket,
      now: this.#now,
      scope,
      deadlineMs: PLUGIN_CALL_DEADLINE_MS,
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

const isObject = (value: unknown): value is object => typeof value === "object" && value !== null;

/** sha256 of the config as JSON with sorted keys, so key order in YAML does not matter. */
function configHash(config: unknown): string {
  return createHash("sha256")
    .update(stableJson(config) ?? "undefined")
    .digest("hex");
}
