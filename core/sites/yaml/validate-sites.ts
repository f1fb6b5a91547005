/**
 * Checks site files as `sitevoice validate` does: every problem of every file at once, each at its
 * line and column. A file passes when it would be accepted as a site by the service, and also
 * breaks none of the rules that only make sense across files or against the installation.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { extname, join, relative, resolve } from "node:path";
import type { SiteRules } from "../site-rules.ts";
import { SchemaVersionError, migrateSiteFile } from "./schema-migrations.ts";
import { parseSiteFile, unreadable } from "./site-file.ts";
import type { SiteFile, SiteProblem } from "./site-file.ts";
import { formatProblem } from "./format-problems.ts";

export interface ValidateSitesOptions {
  /** The rules a site must keep, shared with the service (adapter types, industries, voices). */
  rules: SiteRules;
  /** Folder that relative paths start from, and that other files are named from in messages. */
  cwd?: string;
}

export interface SiteValidation {
  /** Every file read, in the order checked. */
  files: SiteFile[];
  /** Every problem of every file, sorted by file, line and column. */
  problems: SiteProblem[];
}

const SITE_FILE_EXTENSIONS = new Set([".yaml", ".yml"]);

/**
 * Reads and checks site files. `paths` are files or folders; a folder stands for its `*.yaml` and
 * `*.yml` files (not its subfolders), sorted by name. Never throws for a bad file: a problem is
 * reported instead, so one run lists everything to fix.
 */
export async function validateSiteFiles(
  paths: string[],
  options: ValidateSitesOptions,
): Promise<SiteValidation> {
  const cwd = options.cwd ?? process.cwd();
  const files: SiteFile[] = [];
  for (const path of await expandPaths(paths.map((p) => resolve(cwd, p)))) {
    files.push(await readOne(path));
  }

  const firstFileOfSiteId = new Map<string, string>();
  for (const file of files) {
    if (file.data === undefined) continue;
    checkFile(file, file.data, options.rules);
    // A duplicate is reported on the later file, naming the one that has the id first.
    const siteId = file.data.site_id;
    if (typeof siteId !== "string") continue;
    const first = firstFileOfSiteId.get(siteId);
    if (first === undefined) firstFileOfSiteId.set(siteId, file.path);
    else {
      add(file, "site_id", `site_id "${siteId}" is already used by ${relative(cwd, first)}`);
    }
  }

  const problems = files.flatMap((file) => file.problems).sort(byPosition);
  return { files, problems };
}

/**
 * One site file's text checked as `sitevoice validate` checks a file named `name`: the lines it
 * would print (none when clean) and, when the file could be read as a site, its data migrated to
 * the current schema (what a sync would send).
 */
export function checkSiteText(
  text: string,
  name: string,
  rules: SiteRules,
): { lines: string[]; data?: Record<string, unknown> } {
  const file = parseSiteFile(Buffer.from(text, "utf8"), `/${name}`);
  if (file.data !== undefined) checkFile(file, file.data, rules);
  const problems = file.problems.sort(byPosition);
  return {
    lines: problems.map((problem) => formatProblem(problem, "/")),
    data: problems.length === 0 ? file.data : undefined,
  };
}

/** Files first as given, folders replaced by their site files; each file once. */
async function expandPaths(paths: string[]): Promise<string[]> {
  const expanded: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info?.isDirectory()) {
      expanded.push(path);
      continue;
    }
    const entries = await readdir(path, { withFileTypes: true });
    const siteFiles = entries
      .filter((entry) => entry.isFile() && SITE_FILE_EXTENSIONS.has(extname(entry.name)))
      .map((entry) => entry.name)
      .sort();
    expanded.push(...siteFiles.map((name) => join(path, name)));
  }
  return [...new Set(expanded)];
}

async function readOne(path: string): Promise<SiteFile> {
  try {
    return parseSiteFile(await readFile(path), path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "no such file or folder" : (error as Error).message;
    return unreadable(path, `cannot read the file: ${reason}`);
  }
}

/**
 * The checks of one file on its own: its schema_version, then the rules the service applies to a
 * site (site-rules.ts), each problem at its line and column.
 */
function checkFile(file: SiteFile, raw: Record<string, unknown>, rules: SiteRules) {
  let data: Record<string, unknown>;
  try {
    data = migrateSiteFile(raw);
  } catch (error) {
    if (!(error instanceof SchemaVersionError)) throw error;
    // The rest of the file is written for a schema this service does not know; checking it
    // against the current one would only add noise.
    add(file, error.field, error.message);
    return;
  }
  file.data = data;
  for (const { field, message } of rules.problems("site-create", data)) add(file, field, message);
}

function add(file: SiteFile, field: string, message: string): void {
  file.problems.push({ path: file.path, ...file.locate(field), field, message });
}

function byPosition(a: SiteProblem, b: SiteProblem): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return a.line - b.line || a.column - b.column;
}
