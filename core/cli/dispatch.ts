/**
 * One dispatcher for every command: finds the command the words name, answers `--help` or `-h`
 * (anywhere before a `--`) with its page before anything is loaded, parses its options by its
 * declaration and refuses an unknown option, a missing value or a wrong number of arguments;
 * only then are the settings read and the command's code loaded and run.
 */
import { parseArgs } from "node:util";
import type { Settings } from "../settings.ts";
import type { Command } from "./command-spec.ts";
import { commandHelp, groupHelp, overviewHelp } from "./help-text.ts";

/** A call the CLI cannot run as written: printed as one line, exit 1. */
export class UsageError extends Error {}

export interface CommandTable {
  commands: readonly Command[];
  /** Each group's word (`keys`) and what its commands are about. */
  groups: Readonly<Record<string, string>>;
}

export interface DispatchContext {
  /** Reads and checks the settings; called only for a command that runs. */
  settings(): Readonly<Settings>;
  /** Where help pages go. */
  out(text: string): void;
}

const HELP = new Set(["--help", "-h"]);

/** Whether `args` ask for help: `--help` or `-h` before any `--`. */
function asksHelp(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((arg) => HELP.has(arg));
}

type Found =
  { command: Command; args: string[] } | { group: string; args: string[] } | { overview: true };

/** The command (or group) `words` name, and the arguments after its name. */
function find(words: readonly string[], table: CommandTable): Found {
  const [first, second, ...rest] = words;
  if (first === undefined || HELP.has(first)) return { overview: true };
  const single = table.commands.find((command) => command.name === first);
  if (single !== undefined) return { command: single, args: words.slice(1) };
  if (!(first in table.groups))
    throw new UsageError(`unknown command "${first}" (see sitevoice --help)`);
  if (second === undefined || HELP.has(second)) return { group: first, args: words.slice(1) };
  const command = table.commands.find((candidate) => candidate.name === `${first} ${second}`);
  if (command === undefined) {
    throw new UsageError(`unknown ${first} command "${second}" (see sitevoice ${first} --help)`);
  }
  return { command, args: rest };
}

const membersOf = (group: string, table: CommandTable) =>
  table.commands.filter((command) => command.name.startsWith(`${group} `));

function helpOf(found: Found, table: CommandTable): string {
  if ("overview" in found) return overviewHelp(table.commands);
  if ("group" in found) {
    return groupHelp(
      found.group,
      table.groups[found.group] as string,
      membersOf(found.group, table),
    );
  }
  return commandHelp(found.command);
}

/** The command's options and arguments, checked against its declaration. */
function parse(command: Command, args: string[]) {
  const refuse = (problem: string) =>
    new UsageError(`${command.name}: ${problem} (see sitevoice ${command.name} --help)`);
  // Not strict: the tokens are checked here, so each refusal names the option as typed.
  const { values, positionals, tokens } = parseArgs({
    args,
    options: command.options,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const option = command.options[token.name];
    if (option === undefined) throw refuse(`unknown option ${token.rawName}`);
    if (option.type === "boolean" && token.value !== undefined) {
      throw refuse(`${token.rawName} takes no value`);
    }
    // parseArgs takes the next word as the value even when it is an option: `--name --scopes`.
    if (
      option.type === "string" &&
      (token.value === undefined ||
        token.value === "" ||
        (!token.inlineValue && token.value.startsWith("-")))
    ) {
      throw refuse(`${token.rawName} needs a value`);
    }
  }
  const { min = 0, max = 0 } = command.positionals ?? {};
  if (positionals.length < min) throw refuse(`expected ${command.args ?? "an argument"}`);
  if (positionals.length > max) {
    throw refuse(`unexpected argument ${JSON.stringify(positionals[max])}`);
  }
  return { values: values as Record<string, string | boolean | undefined>, positionals };
}

/** Runs the command `argv` names, or prints the help it asks for. */
export async function dispatch(
  argv: readonly string[],
  table: CommandTable,
  context: DispatchContext,
): Promise<void> {
  const asked = argv[0] === "help";
  const found = find(asked ? argv.slice(1) : argv, table);
  if ("command" in found && !asked && !asksHelp(found.args)) {
    const input = parse(found.command, found.args);
    const settings = context.settings();
    const run = await found.command.load();
    return run(settings, input);
  }
  if ("group" in found && !asked && found.args.length === 0) {
    const names = membersOf(found.group, table).map((command) => command.name.split(" ")[1]);
    throw new UsageError(
      `${found.group} needs a command: ${names.join(", ")} (see sitevoice ${found.group} --help)`,
    );
  }
  context.out(helpOf(found, table));
}
