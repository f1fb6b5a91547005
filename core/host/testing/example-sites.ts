/**
 * The example sites of sites/ (a dental clinic on a REST API, a restaurant menu, a shop on
 * PostgreSQL) as the service holds them: parsed, checked against the site schema, defaults
 * filled in. Realistic configs for a plugin's tests and the service's own.
 */
import { fileURLToPath } from "node:url";
import type { SiteConfig } from "../../sites/site-types.ts";
import { readSiteFile } from "../../sites/yaml/site-file.ts";
import { validateBody } from "../../validation/schema-validator.ts";

/** The folder of the example site files. */
export const EXAMPLE_SITES_DIR = fileURLToPath(new URL("../../../sites/", import.meta.url));

/** One example site by its file name, such as `bright-smiles-dental.yaml`. */
export function exampleSite(file: string): SiteConfig {
  const parsed = readSiteFile(`${EXAMPLE_SITES_DIR}${file}`);
  if (parsed.problems.length > 0) {
    throw new Error(`${file}: ${parsed.problems.map((p) => p.message).join("; ")}`);
  }
  return validateBody<SiteConfig>("site-create", parsed.data);
}
