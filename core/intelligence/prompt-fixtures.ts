/**
 * What the prompt tests share: the smallest valid site, a fixed moment, and finding a section of
 * a prompt. The example sites come from the testing kit (host/testing/example-sites.ts).
 */
import type { SiteConfig } from "../sites/site-types.ts";
import { validateBody } from "../validation/schema-validator.ts";
export const NOW = new Date("2026-11-21T13:05:00Z");

/** The smallest valid site: only the required fields, everything else defaulted. */
export function minimalSite(overrides: Record<string, unknown> = {}): SiteConfig {
  return validateBody<SiteConfig>("site-create", {
    business_name: "Corner Bakery",
    business_description: "",
    domain: "bakery.example",
    ...overrides,
  });
}

/** The text of the `## <title>` section, up to the next heading. */
export function section(prompt: string, title: string): string {
  const start = prompt.indexOf(`\n## ${title}\n`);
  if (start === -1) return "";
  const end = prompt.indexOf("\n## ", start + 1);
  return prompt.slice(start + 1, end === -1 ? undefined : end);
}
