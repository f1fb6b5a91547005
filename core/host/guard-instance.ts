/**
 * The guard a plugin instance wears once it leaves the host. Instances are shared and their
 * failures must never take the service down, so every method failure reaches the caller as a
 * PluginCallError, and `close`, which only the host may call, is hidden.
 */
import { PluginCallError } from "./plugin-errors.ts";
import type { PluginInstance, PluginKind } from "./plugin.ts";

/**
 * Wraps an instance so that every method failure, sync or async, reaches the caller as a rejected
 * PluginCallError, and hides `close`: instances are shared, so only the host may end them.
 */
export function guardInstance(
  instance: PluginInstance,
  plugin: string,
  kind: PluginKind,
): PluginInstance {
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

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as PromiseLike<unknown>).then === "function";
