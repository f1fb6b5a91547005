/**
 * The live instances of the registered plugins: one per scope, plugin and config hash, made on
 * first use and shared by concurrent callers, replaced (the old one closed first) when the config
 * of a scope changes, and closed newest first on shutdown. The host decides which plugins exist;
 * this decides when their instances are made and ended.
 *
 * Site-scoped instances (an adapter's connection pool per site) are bounded: at most
 * `maxScoped` of them, the least recently used going first, and none idle longer than
 * `scopedIdleMs`. One that goes is closed only after the call deadline, when no call that got it
 * can still be running; a later call makes it again. Global instances are never dropped.
 */
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { HostLogger } from "./logger.ts";
import { PluginConfigError, PluginCreateError } from "./plugin-errors.ts";
import {
  PLUGIN_CALL_DEADLINE_MS,
  type InstanceByKind,
  type PluginContext,
  type PluginInstance,
  type PluginDefinition,
  type PluginKind,
} from "./plugin.ts";
import type { OAuthAccess } from "./oauth-contract.ts";
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
  readonly #logger: HostLogger;
  readonly #network: PluginNetwork;
  readonly #now: () => number;
  /**
   * Keyed by scope and plugin name: a scope holds one config of a plugin at a time. Global slots
   * in a Map, site-scoped ones in a bounded cache.
   */
  readonly #globals = new Map<string, Slot>();
  readonly #scoped: LRUCache<string, Slot>;
  readonly #retireAfterMs: number;
  /**
   * The slot last made or found for a config object: a caller that hands the same object again
   * (the site cache holds one per site version) skips the schema check and the hash. Only objects
   * are remembered, weakly; a slot replaced since is not used.
   */
  readonly #byConfig = new WeakMap<object, Slot>();
  /** Slots whose instance exists, in order of creation, so shutdown can go in reverse. */
  #created: Slot[] = [];
  #closing: Promise<void> | undefined;
  /** Set by the host (`provideOAuth`) before any OAuth adapter's instance is made. */
  oauthAccess: OAuthAccessFor | undefined;

  /** `network` and `now` are handed to every plugin in its PluginContext. */
  constructor(options: {
    logger: HostLogger;
    network: PluginNetwork;
    now: () => number;
    limits?: ScopedInstanceLimits;
    oauthAccess?: OAuthAccessFor;
  }) {
    this.oauthAccess = options.oauthAccess;
    this.#logger = options.logger;
    this.#network = options.network;
    this.#now = options.now;
    this.#retireAfterMs = options.limits?.retireAfterMs ?? PLUGIN_CALL_DEADLINE_MS;
    this.#scoped = new LRUCache<string, Slot>({
      max: options.limits?.maxScoped ?? DEFAULT_MAX_SCOPED,
      ttl: options.limits?.scopedIdleMs ?? DEFAULT_SCOPED_IDLE_MS,
      updateAgeOnGet: true,
      // Replacements close their predecessor themselves (#create); evicted or expired ones close
      // once no call can still use them.
      dispose: (slot, _key, reason) => {
        if (reason === "evict" || reason === "expire") this.#retireLater(slot);
      },
    });
  }

  /** How many site-scoped instances are live (the bound's test reads it). */
  get scopedCount(): number {
    return this.#scoped.size;
  }

  #slots(scope: string): Map<string, Slot> | LRUCache<string, Slot> {
    return scope === "global" ? this.#globals : this.#scoped;
  }

  /**
   * The guarded instance of `plugin` for `scope` and this config, made on first use; throws
   * PluginConfigError when the config fails the plugin's configSchema.
   */
  async get(plugin: Registration, config: unknown, scope: string): Promise<PluginInstance> {
    if (this.#closing) throw new Error("the plugin host is closed");
    const { name, kind } = plugin;
    const key = `${scope}\u0000${name}`;
    const slots = this.#slots(scope);
    const known = isObject(config) ? this.#byConfig.get(config) : undefined;
    if (known !== undefined && known.plugin === plugin && slots.get(key) === known) {
      return known.ready;
    }
    const issues = configIssues(plugin, config);
    if (issues.length > 0) throw new PluginConfigError(name, issues);

    const hash = configHash(config);
    let slot = slots.get(key);
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
        if (peek(slots, key) === next) slots.delete(key);
      });
      if (slots instanceof LRUCache) slots.purgeStale();
      slots.set(key, next);
      slot = next;
    }
    if (isObject(config)) this.#byConfig.set(config, slot);
    return slot.ready;
  }

  /** The live global instances of a kind with their plugins, in order of registration. */
  globals<K extends PluginKind>(kind: K): { plugin: Registration; instance: InstanceByKind[K] }[] {
    return [...this.#globals.values()]
      .filter((s) => s.plugin.kind === kind && s.guarded)
      .map((s) => ({ plugin: s.plugin, instance: s.guarded as InstanceByKind[K] }));
  }

  /** Closes every instance, newest first; a failing close is logged and the rest go on. */
  close(): Promise<void> {
    this.#closing ??= this.#closeAll();
    return this.#closing;
  }

  async #closeAll(): Promise<void> {
    const slots = [...this.#globals.values(), ...this.#scoped.values()];
    await Promise.allSettled(slots.map((s) => s.ready));
    this.#globals.clear();
    // Cleared without dispose: every created instance is closed below.
    this.#scoped.clear();
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
      oauth:
        plugin.definition.oauth && this.oauthAccess?.({ plugin: plugin.definition, scope, config }),
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

  /**
   * Closes an instance dropped from the bounded cache, after the call deadline: a call that got
   * it just before is over by then (the host answered it at its deadline anyway).
   */
  #retireLater(slot: Slot): void {
    setTimeout(() => void this.#retire(slot), this.#retireAfterMs).unref();
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

/** Gives an OAuth adapter's instance its `context.oauth` (plugin-host.ts `oauthAccess`). */
export type OAuthAccessFor = (instance: {
  plugin: PluginDefinition;
  scope: string;
  config: unknown;
}) => OAuthAccess;

/** Defaults of the bound on site-scoped instances (settings can change them). */
export const DEFAULT_MAX_SCOPED = 1_000;
export const DEFAULT_SCOPED_IDLE_MS = 30 * 60_000;

export interface ScopedInstanceLimits {
  /** Site-scoped instances kept at most; the least recently used goes first. */
  maxScoped?: number;
  /** A site-scoped instance unused this long goes. */
  scopedIdleMs?: number;
  /** How long after it went an instance is closed: the call deadline unless a test says less. */
  retireAfterMs?: number;
}

/** A look that does not count as use. */
const peek = (slots: Map<string, Slot> | LRUCache<string, Slot>, key: string) =>
  slots instanceof LRUCache ? slots.peek(key) : slots.get(key);

const isObject = (value: unknown): value is object => typeof value === "object" && value !== null;

/** sha256 of the config as JSON with sorted keys, so key order in YAML does not matter. */
function configHash(config: unknown): string {
  return createHash("sha256")
    .update(stableJson(config) ?? "undefined")
    .digest("hex");
}
