/**
 * `sitevoice diff` and `sitevoice sync [--dry-run] [--prune]`: print, per site, what would change
 * field by field, then (sync) apply it. The CLI parses arguments and exits with the code returned.
 */
import { relative } from "node:path";
import type { SiteRules } from "../site-rules.ts";
import type { FieldChange } from "../site-diff.ts";
import { formatProblem, formatProblemSummary, plural } from "../yaml/format-problems.ts";
import { DEFAULT_SITES_DIR } from "../yaml/validate-command.ts";
import { readDesiredSites } from "./desired-sites.ts";
import type { SiteTarget } from "./site-target.ts";
import { applySync, planSync, type SyncPlan } from "./sync-sites.ts";

export interface SyncCommandOptions {
  cwd: string;
  out: (line: string) => void;
  target: SiteTarget;
  /** The rules every file must keep (those of the installation running the command). */
  rules: SiteRules;
  env?: Readonly<Record<string, string | undefined>>;
  /** Delete the target's sites that no file describes. */
  prune?: boolean;
  /** Plan only (sync --dry-run, and diff). */
  dryRun?: boolean;
}

/** Plans and prints; 0 when the plan could be made, 1 when a file or the service refused. */
export async function diffCommand(paths: string[], options: SyncCommandOptions): Promise<number> {
  return syncCommand(paths, { ...options, dryRun: true });
}

export async function syncCommand(paths: string[], options: SyncCommandOptions): Promise<number> {
  const { out, target } = options;
  const targets = paths.length > 0 ? paths : [DEFAULT_SITES_DIR];
  const read = await readDesiredSites(targets, options);
  if (read.problems.length > 0) return refuse(read.problems, options, "nothing was applied");
  if (read.sites.length === 0) {
    out(`${targets.join(" ")}: no site files found; nothing to do`);
    return 0;
  }
  const plan = await planSync(read.sites, target);
  if (plan.problems.length > 0)
    return refuse(plan.problems, options, `${target.label} refused; nothing was applied`);

  printPlan(plan, options);
  if (options.dryRun) {
    out(`Nothing was applied to ${target.label}.`);
    return 0;
  }
  const applied = await applySync(plan, target, { prune: options.prune });
  let failed = 0;
  for (const entry of applied) {
    if ("error" in entry) {
      failed += 1;
      out(`error: ${entry.action} ${entry.siteId}: ${entry.error.message}`);
    } else if (entry.action === "delete") out(`deleted ${entry.siteId}`);
    else {
      const verb = entry.result.created ? "created" : "updated";
      out(`${verb} ${entry.siteId} (version ${entry.result.site.version})`);
    }
  }
  const done = applied.length - failed;
  out(
    done === 0 && failed === 0
      ? `Nothing to apply: ${target.label} already matches the files.`
      : `Applied ${plural(done, "change")} to ${target.label}${failed > 0 ? `; ${failed} failed` : ""}.`,
  );
  return failed > 0 ? 1 : 0;
}

function refuse(
  problems: Parameters<typeof formatProblem>[0][],
  { out, cwd }: SyncCommandOptions,
  outcome: string,
): number {
  for (const problem of problems) out(formatProblem(problem, cwd));
  out(`${formatProblemSummary(problems)}; ${outcome}.`);
  return 1;
}

function printPlan(plan: SyncPlan, { out, cwd, prune }: SyncCommandOptions) {
  const count = { create: 0, update: 0, unchanged: 0 };
  for (const { siteId, plan: sitePlan, desired } of plan.sites) {
    count[sitePlan.action] += 1;
    const file = relative(cwd, desired.file.path);
    switch (sitePlan.action) {
      case "unchanged":
        out(`= ${siteId}  ${file}  unchanged (version ${sitePlan.version})`);
        break;
      case "create":
        out(`+ ${siteId}  ${file}  create`);
        break;
      case "update":
        out(
          `~ ${siteId}  ${file}  update (version ${sitePlan.version}, last changed through ${sitePlan.source ?? "?"})`,
        );
    }
    for (const change of sitePlan.changes) out(`    ${formatChange(change)}`);
  }
  for (const orphan of plan.orphans) {
    out(
      prune
        ? `- ${orphan.site_id}  not in the files  delete`
        : `! ${orphan.site_id}  not in the files  kept (sync --prune deletes it)`,
    );
  }
  const deletions = prune ? plan.orphans.length : 0;
  out(
    `Plan: ${count.create} to create, ${count.update} to update, ${count.unchanged} unchanged, ${deletions} to delete.`,
  );
}

/** `~ field: before → after`, `+ field: value`, `- field: value`; long values shortened. */
export function formatChange(change: FieldChange): string {
  switch (change.op) {
    case "add":
      return `+ ${change.field}: ${shortValue(change.after)}`;
    case "remove":
      return `- ${change.field}: ${shortValue(change.before)}`;
    case "change":
      return `~ ${change.field}: ${shortValue(change.before)} → ${shortValue(change.after)}`;
  }
}

const MAX_VALUE_CHARS = 72;

function shortValue(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}
