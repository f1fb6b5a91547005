import type { PluginHost } from "../host/plugin-host.ts";

/** Every adapter type a site may name: those of the loaded adapter plugins, sorted. */
export function knownAdapterTypes(plugins: PluginHost): string[] {
  const types = plugins
    .list()
    .filter((p) => p.kind === "adapter" && p.type !== undefined)
    .map((p) => p.type as string);
  return [...new Set(types)].sort();
}
