/**
 * How `sitevoice validate` prints problems: one line each, in the `file:line:column` form editors
 * and terminals turn into links.
 */
import { relative } from "node:path";
import type { SiteProblem } from "./site-file.ts";

/**
 * `sites/a.yaml:12:5  adapter.config.baseUrl  message`: the file relative to `cwd`, then the field
 * (`-` for a problem with the whole file) and the message, two spaces apart.
 */
export function formatProblem(problem: SiteProblem, cwd: string): string {
  const file = relative(cwd, problem.path) || problem.path;
  const field = problem.field === "" ? "-" : problem.field;
  return `${file}:${problem.line}:${problem.column}  ${field}  ${problem.message}`;
}

/** The closing line of a run with problems: `3 problems in 2 files`. */
export function formatProblemSummary(problems: readonly SiteProblem[]): string {
  const files = new Set(problems.map((p) => p.path)).size;
  return `${plural(problems.length, "problem")} in ${plural(files, "file")}`;
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
