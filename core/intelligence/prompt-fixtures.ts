/**
 * What the prompt tests share: the example sites' folder and the sites as the service holds them,
 * a fixed moment, and finding a section of a prompt.
 */
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import type { SiteConfig } from "../sites/site-types.ts";
import { readSiteFile } from "../sites/yaml/site-file.ts";
import { validateBody } from "../validation/schema-validator.ts";

export const SITES_DIR = fileURLToPath(new URL("../../sites/", import.meta.url));
export const NOW = new Date("2026-11-21T13:05:00Z");

/** A site file as the service holds it: parsed, checked, defaults filled. */
export function loadSite(file: string): SiteConfig {
  const parsed = readSiteFile(`${SITES_DIR}${file}`);
  expect(parsed.problems, file).to.deep.equal([]);
  return validateBody<SiteConfig>("site-create", parsed.data);
}

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
