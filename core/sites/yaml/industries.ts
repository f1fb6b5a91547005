/**
 * The industries that have a prompt template: `templates/industries/<industry>.hbs`. A site file
 * naming another industry is refused by validation, since it would silently get no guidance.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** `templates/industries/` of this repository (the service runs its TypeScript sources, see bin/). */
export const INDUSTRY_TEMPLATES_DIR = fileURLToPath(
  new URL("../../../templates/industries/", import.meta.url),
);

/**
 * The industry keys with a template in `dir`: the file names without `.hbs`. Read when a command
 * or the service starts; a missing folder has none.
 */
export function listIndustries(dir: string = INDUSTRY_TEMPLATES_DIR): Set<string> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Set();
    throw error;
  }
  return new Set(
    names
      .filter((name) => name.endsWith(".hbs"))
      .map((name) => name.slice(0, -".hbs".length))
      .sort(),
  );
}
