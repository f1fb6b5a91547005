/**
 * Where an adapter config sends what it is trusted with, as text: the plugin's `destination`
 * (an origin, a database's host, port and name) of the config with its defaults, or, when the
 * plugin does not say, the whole config but for its secrets. Masked secrets are kept across a
 * change (site-rules.ts) and OAuth tokens are used (core/oauth/) only while it stays the same.
 */
import type { PluginHost } from "../host/plugin-host.ts";
import { stableJson } from "../util/stable-json.ts";
import { withoutSecrets } from "./site-secrets.ts";

export function adapterDestination(plugins: PluginHost, type: string, config: unknown): string {
  // With the plugin's defaults, as the stored config has them: leaving out a defaulted field is
  // no change of destination.
  const complete = plugins.configWithDefaults("adapter", type, config);
  return (
    plugins.destination("adapter", type, complete) ?? stableJson(withoutSecrets(complete)) ?? ""
  );
}
