/**
 * `sitevoice pull [folder]`: writes the target's sites into YAML files. An existing file is edited
 * only where the site differs (see yaml-edit.ts), so its comments and key order survive; a site
 * without a file gets a new `<site_id>.yaml`. Secrets never come back in plain text: the service
 * only ever answers them masked, a masked value syncs back as "unchanged", and a `${env:…}` or
 * `${file:…}` reference in the file is always kept.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { stringify } from "yaml";
import type { SiteRules } from "../site-rules.ts";
import { diffSites } from "../site-diff.ts";
import { isSecretPath, MASK, maskSecret } from "../site-secrets.ts";
import { storedShape, type SiteView } from "../site-service.ts";
import { formatProblem, formatProblemSummary, plural } from "../yaml/format-problems.ts";
import { hasReference } from "../yaml/secret-refs.ts";
import { DEFAULT_SITES_DIR } from "../yaml/validate-command.ts";
import { readDesiredSites, type DesiredSite } from "./desired-sites.ts";
import type { SiteTarget } from "./site-target.ts";
import { formatChange } from "./sync-command.ts";
import { editYaml, type YamlEdit } from "./yaml-edit.ts";

export interface PullCommandOptions {
  cwd: string;
  out: (line: string) => void;
  target: SiteTarget;
  /** The rules every file must keep (those of the installation running the command). */
  rules: SiteRules;
}

export async function pullCommand(paths: string[], options: PullCommandOptions): Promise<number> {
  const { cwd, out, target } = options;
  if (paths.length > 1) throw new Error("pull writes into one folder; give at most one");
  const folder = resolve(cwd, paths[0] ?? DEFAULT_SITES_DIR);
  await mkdir(folder, { recursive: true });
  // Files are edited, not applied: their references stay unresolved and need no secrets.
  const read = await readDesiredSites([folder], { ...options, resolve: false });
  if (read.problems.length > 0) {
    for (const problem of read.problems) out(formatProblem(problem, cwd));
    out(`${formatProblemSummary(read.problems)}; fix them before pulling, nothing was written.`);
    return 1;
  }

  const unmatched = new Set(read.sites);
  let written = 0;
  for (const view of await target.list()) {
    const stored = storedSite(view);
    const desired =
      read.sites.find((site) => site.siteId === view.site_id) ??
      read.sites.find((site) => site.siteId === undefined && site.domain === view.domain);
    if (desired === undefined) {
      const path = join(folder, `${view.site_id}.yaml`);
      if (existsSync(path)) {
        out(
          `error: ${relative(cwd, path)} exists but describes another site; ${view.site_id} not written`,
        );
        continue;
      }
      await writeFile(path, newSiteFile(stored, target.label));
      written += 1;
      out(`+ ${view.site_id}  ${relative(cwd, path)}  written (version ${view.version})`);
      continue;
    }
    unmatched.delete(desired);
    const changes = diffSites(comparable(desired, stored, options.rules), stored);
    const file = relative(cwd, desired.file.path);
    if (changes.length === 0) {
      out(`= ${view.site_id}  ${file}  up to date (version ${view.version})`);
      continue;
    }
    const original = await readFile(desired.file.path, "utf8");
    await writeFile(desired.file.path, editYaml(original, editsFor(changes, desired.site, stored)));
    written += 1;
    out(`~ ${view.site_id}  ${file}  updated to version ${view.version}`);
    for (const change of changes) out(`    ${formatChange(change)}`);
  }
  for (const site of unmatched) {
    out(`! ${relative(cwd, site.file.path)}  not in ${target.label}; left alone`);
  }
  out(`Pulled from ${target.label}: ${plural(written, "file")} written.`);
  return 0;
}

/** A site as answered, without the fields that are not part of its config. */
function storedSite(view: SiteView): Record<string, unknown> {
  const { version: _v, created_at: _c, updated_at: _u, ...site } = view;
  return site;
}

/**
 * The file's site in the shape the service stores (storedShape: defaults, the adapter plugin's
 * included, filled in, host names normalized) with its secrets as the service shows them: masked,
 * and a reference taken as equal to whatever the service holds, so a pull never replaces one.
 */
function comparable(
  desired: DesiredSite,
  stored: Record<string, unknown>,
  rules: SiteRules,
): Record<string, unknown> {
  const site = storedShape(rules, desired.site);
  const withId = { ...site, site_id: desired.siteId ?? stored.site_id } as Record<string, unknown>;
  return maskLike(withId, stored, []) as Record<string, unknown>;
}

function maskLike(value: unknown, stored: unknown, path: string[]): unknown {
  if (typeof value === "string" && isSecretPath(path)) {
    if (hasReference(value) && typeof stored === "string") return stored;
    return value.includes(MASK) ? value : maskSecret(value, path.at(-1));
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const storedObject = (typeof stored === "object" && stored !== null ? stored : {}) as Record<
    string,
    unknown
  >;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      maskLike(item, storedObject[key], [...path, key]),
    ]),
  );
}

/**
 * The edits that make the file say what the service holds. A change below a mapping the file does
 * not write (its default was in effect) becomes the whole mapping, added at the file's level.
 */
function editsFor(
  changes: ReturnType<typeof diffSites>,
  file: Record<string, unknown>,
  stored: Record<string, unknown>,
): YamlEdit[] {
  const edits = new Map<string, YamlEdit>();
  for (const { path } of changes) {
    let depth = 1;
    while (depth < path.length && hasPath(file, path.slice(0, depth))) depth += 1;
    const at = path.slice(0, depth);
    edits.set(JSON.stringify(at), { path: at, value: valueAt(stored, at) });
  }
  // A whole mapping replaced makes the edits below it redundant.
  return [...edits.values()].filter(
    (edit) =>
      ![...edits.values()].some(
        (other) =>
          other.path.length < edit.path.length &&
          other.path.every((key, i) => edit.path[i] === key),
      ),
  );
}

function hasPath(data: unknown, path: string[]): boolean {
  let node = data;
  for (const key of path) {
    if (typeof node !== "object" || node === null || Array.isArray(node) || !(key in node))
      return false;
    node = (node as Record<string, unknown>)[key];
  }
  return typeof node === "object" && node !== null && !Array.isArray(node);
}

function valueAt(data: unknown, path: string[]): unknown {
  let node = data;
  for (const key of path) node = (node as Record<string, unknown> | undefined)?.[key];
  return node;
}

function newSiteFile(site: Record<string, unknown>, label: string): string {
  return (
    `# ${String(site.business_name)}: written by sitevoice pull from ${label}.\n` +
    "# Secrets show masked (••••): syncing a masked value keeps the service's secret. To manage\n" +
    "# one in git, replace it with ${env:NAME} or ${file:path}.\n" +
    stringify(site, { lineWidth: 100, flowCollectionPadding: false })
  );
}
