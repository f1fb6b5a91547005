/**
 * The sites a folder of YAML files asks for: read, validated as `sitevoice validate` does, migrated
 * to the current schema_version, and with their secret references resolved. What sync, diff,
 * pull and the start-up load begin with.
 */
import { dirname } from "node:path";
import type { SiteRules } from "../site-rules.ts";
import { resolveReferences } from "../yaml/secret-refs.ts";
import type { SiteFile, SiteProblem } from "../yaml/site-file.ts";
import { validateSiteFiles } from "../yaml/validate-sites.ts";

/** One clean site file and the site it describes. */
export interface DesiredSite {
  file: SiteFile;
  /** The file's content, migrated, references resolved (secrets in clear: keep it in memory). */
  site: Record<string, unknown>;
  /** The file's fixed site_id; without one, a site is matched by its domain. */
  siteId?: string;
  domain: string;
}

export interface ReadSitesOptions {
  cwd: string;
  /** The rules every file must keep. */
  rules: SiteRules;
  /** Where `${env:…}` references look; process.env by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** False for validation that must not need the secrets (pull reads files it only edits). */
  resolve?: boolean;
}

/**
 * Reads the site files of `paths` (files or folders). `sites` holds every file without problems,
 * `problems` every problem of the others, so a caller may refuse all (the CLI) or go on with the
 * clean ones (the start-up load).
 */
export async function readDesiredSites(
  paths: string[],
  options: ReadSitesOptions,
): Promise<{ sites: DesiredSite[]; files: SiteFile[]; problems: SiteProblem[] }> {
  const { files } = await validateSiteFiles(paths, {
    cwd: options.cwd,
    rules: options.rules,
  });
  const sites: DesiredSite[] = [];
  for (const file of files) {
    if (file.problems.length > 0 || file.data === undefined) continue;
    let site = file.data;
    if (options.resolve !== false) {
      const resolved = resolveReferences(file.data, {
        env: options.env,
        baseDir: dirname(file.path),
      });
      for (const { field, message } of resolved.problems) {
        file.problems.push({ path: file.path, ...file.locate(field), field, message });
      }
      if (resolved.data === undefined) continue;
      site = resolved.data;
    }
    sites.push({
      file,
      site,
      siteId: typeof site.site_id === "string" ? site.site_id : undefined,
      domain: String(site.domain).toLowerCase(),
    });
  }
  return { sites, files, problems: files.flatMap((file) => file.problems) };
}
