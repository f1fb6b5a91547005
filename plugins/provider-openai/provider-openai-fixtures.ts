/**
 * What the provider-openai tests share: a host with the built-in plugins, the example clinic's
 * session request, and the VoiceProviderUnavailable behind a rejected call.
 */
import path from "node:path";
import { expect } from "chai";
import { PluginCallError, type PluginHost } from "sitevoice";
import { exampleVoiceSessionRequest, testPluginHost } from "sitevoice/testing";

/** What the token endpoint asks for: the example clinic's voice, prompt and tools. */
export const sessionRequest = exampleVoiceSessionRequest;

/** The VoiceProviderUnavailable a rejected call carries, after checking how the host wrapped it. */
export async function unavailable(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(PluginCallError);
    // By name, as the service checks it: the builtin is imported by file URL, which under tsx
    // can give it its own copy of core/host/plugin.ts, so `instanceof` is not reliable.
    const cause = (error as PluginCallError).cause as Error;
    expect(cause.name).to.equal("VoiceProviderUnavailable");
    return cause;
  }
  throw new Error("expected the call to be rejected");
}

export const signal = () => new AbortController().signal;

/**
 * A started host with the built-in plugins. The stand-in is on 127.0.0.1, which the production
 * guard refuses, so this host allows private networks.
 */
export async function hostWithBuiltins(): Promise<PluginHost> {
  const host = testPluginHost({ allowPrivateNetworks: true });
  await host.loadBuiltins(path.resolve("plugins"));
  host.start();
  return host;
}
