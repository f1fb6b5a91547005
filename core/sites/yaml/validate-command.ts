/**
 * `sitevoice validate [paths…]`: checks site files and prints every problem, for a terminal or CI.
 * The CLI only parses arguments and exits with the code returned here.
 */
import type { SiteRules } from "../site-rules.ts";
import { formatProblem, formatProblemSummary, plural } from "./format-problems.ts";
import { validateSiteFiles } from "./validate-sites.ts";

export interface ValidateCommandOptions {
  /** Folder the paths are relative to, and that printed paths are relative to. */
  cwd: string;
  /** Receives each output line (without its newline). */
  out: (line: string) => void;
  /** The rules every file must keep: the installation's, as the service applies them. */
  rules: SiteRules;
}

/** The folder checked when no path is given. */
export const DEFAULT_SITES_DIR = "sites/";

/**
 * Validates `paths` (files or folders; `sites/` when none), prints one line per problem and a
 * summary, and returns the exit code: 0 when every file is clean, 1 when any problem was found.
 */
export async function validateCommand(
  paths: string[],
  options: ValidateCommandOptions,
): Promise<number> {
  const { cwd, out } = options;
  const targets = paths.length > 0 ? paths : [DEFAULT_SITES_DIR];
  const { files, problems } = await validateSiteFiles(targets, {
    cwd,
    rules: options.rules,
  });
  for (const problem of problems) out(formatProblem(problem, cwd));
  if (problems.length > 0) {
    out(formatProblemSummary(problems));
    return 1;
  }
  const checked = files.length === 0 ? "no site files found" : `${plural(files.length, "file")} OK`;
  out(`${targets.join(" ")}: ${checked}`);
  return 0;
}
