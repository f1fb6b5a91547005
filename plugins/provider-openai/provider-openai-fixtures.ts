/**
 * What the provider-openai tests share: a host with the built-in plugins, the example clinic's
 * session request, and the VoiceProviderUnavailable behind a rejected call.
 */
import path from "node:path";
import { expect } from "chai";
import { pino } from "pino";
import { PluginCallError } from "../../core/host/plugin-errors.ts";
import { PluginHost } from "../../core/host/plugin-host.ts";
import type { VoiceSessionRequest } from "../../core/host/plugin.ts";
import { OutboundPolicy } from "../../core/security/outbound-policy.ts";
import type { SiteConfig } from "../../core/sites/site-types.ts";
import { readSiteFile } from "../../core/sites/yaml/site-file.ts";
import { validateBody } from "../../core/validation/schema-validator.ts";
import { buildVoiceTools } from "../../core/widget/voice-tools.ts";

export const logger = pino({ level: "silent" });

function dentalSite(): SiteConfig {
  const parsed = readSiteFile(path.resolve("sites", "bright-smiles-dental.yaml"));
  return validateBody<SiteConfig>("site-create", parsed.data);
}

/** What the token endpoint asks for: the example clinic's voice, prompt and tools. */
export function sessionRequest(overrides: Partial<VoiceSessionRequest> = {}): VoiceSessionRequest {
  const site = dentalSite();
  return {
    site_id: site.site_id,
    voice: site.voice,
    language: site.language,
    instructions: `You are the voice assistant of ${site.business_name}. ${site.personality}`,
    tools: buildVoiceTools(site, { sectionIds: ["services", "contact"] }),
    expiresInSeconds: 60,
    ...overrides,
  };
}

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
  const host = new PluginHost({
    logger,
    outbound: new OutboundPolicy({ allowPrivateNetworks: true }),
  });
  await host.loadBuiltins(path.resolve("plugins"));
  host.start();
  return host;
}
