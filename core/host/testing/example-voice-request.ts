/**
 * A realistic request for a voice-provider plugin's tests: what the token endpoint asks of the
 * provider for the example dental clinic (sites/bright-smiles-dental.yaml): its voice, language,
 * prompt and the tools its config gives the agent.
 */
import type { VoiceSessionRequest } from "../plugin.ts";
import { buildVoiceTools } from "../../widget/voice-tools.ts";
import { exampleSite } from "./example-sites.ts";

export function exampleVoiceSessionRequest(
  overrides: Partial<VoiceSessionRequest> = {},
): VoiceSessionRequest {
  const site = exampleSite("bright-smiles-dental.yaml");
  return {
    site_id: site.site_id,
    voice: site.voice,
    language: site.language,
    mode: "voice",
    instructions: `You are the voice assistant of ${site.business_name}. ${site.personality}`,
    tools: buildVoiceTools(site, { sectionIds: ["services", "contact"] }),
    expiresInSeconds: 60,
    ...overrides,
  };
}
