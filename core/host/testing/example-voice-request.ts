/**
 * A realistic request for a voice-provider plugin's tests: what the token endpoint asks of the
 * provider for the example dental clinic (sites/bright-smiles-dental.yaml): its voice, language,
 * prompt and the tools its config gives the agent.
 */
import { fileURLToPath } from "node:url";
import type { VoiceSessionRequest } from "../plugin.ts";
import type { SiteConfig } from "../../sites/site-types.ts";
import { readSiteFile } from "../../sites/yaml/site-file.ts";
import { validateBody } from "../../validation/schema-validator.ts";
import { buildVoiceTools } from "../../widget/voice-tools.ts";

const EXAMPLE_SITE = fileURLToPath(
  new URL("../../../sites/bright-smiles-dental.yaml", import.meta.url),
);

export function exampleVoiceSessionRequest(
  overrides: Partial<VoiceSessionRequest> = {},
): VoiceSessionRequest {
  const site = validateBody<SiteConfig>("site-create", readSiteFile(EXAMPLE_SITE).data);
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
