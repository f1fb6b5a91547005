/**
 * The help pages, printed from the commands' declarations: `sitevoice --help` lists every
 * command, `sitevoice <group> --help` the commands of a group, `sitevoice <command> --help` one
 * command's usage, options and example.
 */
import { synopsis, type Command } from "./command-spec.ts";

const HELP_OPTION = { flag: "-h, --help", description: "show this help and do nothing else" };

/** Lines of `[left, right]` with the right-hand column aligned. */
function columns(rows: [string, string][], indent = "  "): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}${right}`.trimEnd());
}

/** The page of one command. */
export function commandHelp(command: Command): string {
  const options = columns([
    ...Object.entries(command.options).map(([name, option]): [string, string] => [
      `--${name}${option.value === undefined ? "" : ` ${option.value}`}`,
      option.description,
    ]),
    [HELP_OPTION.flag, HELP_OPTION.description],
  ]);
  return [
    `usage: sitevoice ${synopsis(command)}`,
    "",
    command.description,
    "",
    "Options:",
    ...options,
    "",
    command.examples.length === 1 ? "Example:" : "Examples:",
    ...command.examples.map((example) => `  ${example}`),
    "",
  ].join("\n");
}

/** `sitevoice --help`: every command, one line each. */
export function overviewHelp(commands: readonly Command[]): string {
  return [
    "usage: sitevoice <command> [arguments] [options]",
    "",
    "Commands:",
    ...columns(
      commands.map((command): [string, string] => [
        [command.name, command.args].filter(Boolean).join(" "),
        command.summary,
      ]),
    ),
    "",
    "Every command reads the settings of the service (the environment: DATABASE_URL, …).",
    "sitevoice <command> --help shows a command's options and an example, and does nothing else.",
    "",
  ].join("\n");
}

/** `sitevoice keys --help`: the commands of a group. */
export function groupHelp(group: string, summary: string, commands: readonly Command[]): string {
  return [
    `usage: sitevoice ${group} <command> [arguments] [options]`,
    "",
    summary,
    "",
    "Commands:",
    ...commands.flatMap((command) => [
      `  sitevoice ${synopsis(command)}`,
      `      ${command.summary}`,
    ]),
    "",
    `sitevoice ${group} <command> --help shows a command's options and an example.`,
    "",
  ].join("\n");
}
