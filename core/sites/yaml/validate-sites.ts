/**
 * Checks site files as `sitevoice validate` does: every problem of every file at once, each at its
 * line and column. A file passes when it would be accepted as a site by the service, and also
 * breaks none of the rules that only make sense across files or against the installation.
 */
import { knownAdapterTypes, SCHEMA_ADAPTER_TYPES } from "../adapter-types.ts";
import { readdir, readFile, stat } from "node:fs/promises";
import { extname, join, relative, resolve } from "node:path";
import { isServiceError } from "../../http/errors.ts";
import type { FieldError } from "../../validation/schema-validator.ts";
import { validateBody } from "../../validation/schema-validator.ts";
import type { PluginHost } from "../../host/plugin-host.ts";
import { SchemaVersionError, migrateSiteFile } from "./schema-migrations.ts";
import { checkReferences } from "./secret-refs.ts";
import { parseSiteFile, unreadable } from "./site-file.ts";
import type { SiteFile, SiteProblem } from "./site-file.ts";

export interface ValidateSitesOptions {
  /** Adapter plugins that may serve `adapter.type` and check its config; none when left out. */
  plugins?: PluginHost;
  /** Industries with a prompt template (see listIndustries). */
  industries: ReadonlySet<string>;
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
    checkFile(file, file.data, options);
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

/** The checks of one file on its own: version, schema, adapter, collections, industry. */
function checkFile(file: SiteFile, raw: Record<string, unknown>, options: ValidateSitesOptions) {
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

  const schemaErrors = schemaProblems(data);
  for (const { field, message } of schemaErrors) add(file, field, message);
  const reported = new Set(schemaErrors.map((e) => e.field));

  const adapter = asRecord(data.adapter);
  if (adapter !== undefined) {
    if (typeof adapter.type === "string" && !reported.has("adapter.type")) {
      const problems = adapterProblems(adapter.type, adapter.config, options.plugins);
      for (const { field, message } of problems) {
        if (!reported.has(field)) add(file, field, message);
      }
    }
    for (const { field, message } of collectionProblems(adapter.collections)) {
      add(file, field, message);
    }
  }

  // References are checked for their form only; their values exist where the file is synced.
  for (const { field, message } of checkReferences(data)) add(file, field, message);

  const industry = data.industry;
  if (typeof industry === "string" && !reported.has("industry")) {
    if (!options.industries.has(industry)) {
      const known = [...options.industries].sort().join(", ");
      add(file, "industry", `no template for industry "${industry}"; known: ${known}`);
    }
  }
}

/** Every problem the `site-create` schema finds (the shape of a site file). */
function schemaProblems(data: Record<string, unknown>): FieldError[] {
  try {
    // validateBody writes defaults into what it checks; the file's data stays as written.
    validateBody("site-create", structuredClone(data));
    return [];
  } catch (error) {
    if (!isServiceError(error)) throw error;
    const errors = error.details.errors as FieldError[] | undefined;
    return errors ?? [{ field: String(error.details.field ?? ""), message: error.message }];
  }
}

/**
 * An adapter type must be built in or served by a loaded plugin, whose configSchema then checks
 * the config (as the site service does when a site is saved).
 */
function adapterProblems(
  type: string,
  config: unknown,
  plugins: PluginHost | undefined,
): FieldError[] {
  const plugin = plugins?.find("adapter", type);
  if (plugins === undefined || plugin === undefined) {
    if (SCHEMA_ADAPTER_TYPES.includes(type)) return [];
    const known = knownAdapterTypes(plugins).join(", ");
    return [
      {
        field: "adapter.type",
        message: `no adapter plugin serves type "${type}"; known: ${known}`,
      },
    ];
  }
  return plugins.validateConfig("adapter", type, config ?? {}).map((issue) => ({
    field: `adapter.${issue.field}`,
    message: `adapter.${issue.field} ${issue.message} (plugin "${plugin.name}")`,
  }));
}

/**
 * A field a collection may be searched or filtered on must also be a display field (when any are
 * listed): the assistant cannot talk about a match whose deciding value it never sees.
 */
function collectionProblems(collections: unknown): FieldError[] {
  const problems: FieldError[] = [];
  for (const [name, value] of Object.entries(asRecord(collections) ?? {})) {
    const collection = asRecord(value);
    const display = collection?.display_fields;
    if (!Array.isArray(display) || display.length === 0) continue;
    for (const list of ["searchable_fields", "filterable_fields"]) {
      const fields = collection?.[list];
      if (!Array.isArray(fields)) continue;
      fields.forEach((field: unknown, index) => {
        if (typeof field !== "string" || display.includes(field)) return;
        problems.push({
          field: `adapter.collections.${name}.${list}.${index}`,
          message: `field "${field}" is not in display_fields of collection "${name}"`,
        });
      });
    }
  }
  return problems;
}

function add(file: SiteFile, field: string, message: string): void {
  file.problems.push({ path: file.path, ...file.locate(field), field, message });
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function byPosition(a: SiteProblem, b: SiteProblem): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return a.line - b.line || a.column - b.column;
}
