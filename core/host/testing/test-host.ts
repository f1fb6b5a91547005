/**
 * A PluginHost for a plugin's tests, made as the service makes its own, with a silent logger and
 * the outbound policy a test needs: private networks allowed by default, since a test's
 * backend or stand-in listens on 127.0.0.1 (the service refuses those unless the operator allows
 * them). Register the plugin, `start()`, then take instances as the service would.
 */
import pino from "pino";
import { PluginHost } from "../plugin-host.ts";
import { OutboundPolicy } from "../../security/outbound-policy.ts";

export function testPluginHost(
  options: {
    allowPrivateNetworks?: boolean;
    now?: () => number;
    /**
     * OAuth adapters: what `context.oauth.accessToken()` answers (a token the test's stand-in of
     * the provider's API accepts); each call asks again, so a test can change it.
     */
    accessToken?: () => string | Promise<string>;
  } = {},
): PluginHost {
  const { accessToken } = options;
  return new PluginHost({
    logger: pino({ level: "silent" }),
    outbound: new OutboundPolicy({ allowPrivateNetworks: options.allowPrivateNetworks ?? true }),
    now: options.now,
    oauthAccess:
      accessToken === undefined
        ? undefined
        : () => ({ accessToken: async () => await accessToken() }),
  });
}
