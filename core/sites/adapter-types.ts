import type { PluginHost } from "../host/plugin-host.ts";

/** Adapter types whose config shape the site schema itself describes. */
export const SCHEMA_ADAPTER_TYPES: readonly string[] = ["mysql", "postgres", "rest"];

/** Every adapter type a site may name: the schema's and those of loaded adapter plugins, sorted. */
export function knownAdapterTypes(plugins: PluginHost | undefined): string[] {
  const pluginTypes = (plugins?.list() ?? [])
    .filter((p) => p.kind === "adapter" && p.type !== undefined)
    .map((p) => p.type as string);
  return [...new Set([...SCHEMA_ADAPTER_TYPES, ...pluginTypes])].sort();
}
