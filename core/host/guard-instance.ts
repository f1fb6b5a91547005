/**
 * The guard a plugin instance wears once it leaves the host. Instances are shared and their
 * failures must never take the service down, so every method failure reaches the caller as a
 * PluginCallError, and `close`, which only the host may call, is hidden.
 */
import { isServiceError } from "../errors.ts";
import { PluginCallError } from "./plugin-errors.ts";
import type { PluginInstance, PluginKind } from "./plugin.ts";

/**
 * Wraps an instance so that every method failure, sync or async, reaches the caller as a rejected
 * PluginCallError (a ServiceError as it is), and hides `close`: instances are shared, so only the host may end them.
 */
export function guardInstance(
  instance: PluginInstance,
  plugin: string,
  kind: PluginKind,
): PluginInstance {
  // The service's own errors, which a plugin meets only through what the host hands it (an
  // OAuth adapter's `context.oauth` refusing: not connected, reauth_required), pass as they are,
  // so the caller gets their code and details rather than "the adapter failed".
  const callError = (method: string) => (error: unknown) =>
    isServiceError(error) ? error : new PluginCallError(plugin, kind, method, error);
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
            throw callError(method)(error);
          });
        } catch (error) {
          return Promise.reject(callError(method)(error));
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
