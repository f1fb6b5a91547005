/**
 * What the plugin host throws. These are internal errors: the layer that serves a request maps
 * them to the matching error code (`adapter_error`, …) and logs the cause.
 */
import { messageOf } from "../util/message-of.ts";
import type { PluginKind } from "./plugin.ts";

/** A module could not be imported, or its default export is not a valid plugin definition. */
export class PluginLoadError extends Error {
  /** Where the definition came from: `builtin:<folder>`, `npm:<package>` or the caller's label. */
  readonly source: string;
  /** The plugin's name when the definition gave a usable one. */
  readonly plugin: string | undefined;

  constructor(
    message: string,
    options: { source: string; plugin?: string | undefined; cause?: unknown },
  ) {
    super(message, { cause: options.cause });
    this.name = "PluginLoadError";
    this.source = options.source;
    this.plugin = options.plugin;
  }
}

/**
 * One way a config fails a plugin's configSchema: `field` is a dotted path like `config.dataset`,
 * `message` a sentence naming it (`config.dataset is required`).
 */
export interface PluginConfigIssue {
  field: string;
  message: string;
}

/** A config does not match the plugin's configSchema; `create` was not called. */
export class PluginConfigError extends Error {
  readonly plugin: string;
  readonly errors: PluginConfigIssue[];

  constructor(plugin: string, errors: PluginConfigIssue[]) {
    super(`plugin "${plugin}": ${errors.map((e) => e.message).join("; ")}`);
    this.name = "PluginConfigError";
    this.plugin = plugin;
    this.errors = errors;
  }
}

/** A plugin's `create` threw or rejected. */
export class PluginCreateError extends Error {
  readonly plugin: string;
  readonly scope: string;

  constructor(plugin: string, scope: string, cause: unknown) {
    super(`plugin "${plugin}": create failed for scope "${scope}": ${messageOf(cause)}`, { cause });
    this.name = "PluginCreateError";
    this.plugin = plugin;
    this.scope = scope;
  }
}

/** A method of a plugin instance threw or rejected. */
export class PluginCallError extends Error {
  readonly plugin: string;
  readonly kind: PluginKind;
  readonly method: string;

  constructor(plugin: string, kind: PluginKind, method: string, cause: unknown) {
    super(`plugin "${plugin}" (${kind}): ${method} failed: ${messageOf(cause)}`, { cause });
    this.name = "PluginCallError";
    this.plugin = plugin;
    this.kind = kind;
    this.method = method;
  }
}
