/**
 * What a CLI command declares, in one place: its words, arguments and options, what it does, an
 * example, and how to load its code. The dispatcher (dispatch.ts) parses and refuses by it and
 * answers `--help` from it; the help pages (help-text.ts) print it; docs/cli.md's command table
 * repeats its usage line (a test keeps them equal).
 */
import type { Settings } from "../settings.ts";

export interface OptionSpec {
  /** `string`: takes a value (`--workspace ID`); `boolean`: a flag (`--prune`). */
  type: "string" | "boolean";
  /** How the usage line names the value: `ID`, `FILE`, `live|test`. */
  value?: string;
  /** One line of the help page. */
  description: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The parsed options of a command: a string for each value given, true for each flag. */
export type ValuesOf<O extends OptionSpecs> = {
  [K in keyof O]?: [O[K]["type"]] extends ["boolean"]
    ? boolean
    : [O[K]["type"]] extends ["string"]
      ? string
      : string | boolean;
};

export interface CommandInput<O extends OptionSpecs> {
  values: ValuesOf<O>;
  positionals: string[];
}

/** A command's code: runs it on the settings, after its input was parsed and checked. */
export type CommandRun<O extends OptionSpecs> = (
  settings: Readonly<Settings>,
  input: CommandInput<O>,
) => Promise<void>;

export interface CommandSpec<O extends OptionSpecs> {
  /** The words after `sitevoice`: `migrate`, `keys create`. */
  name: string;
  /** The positional arguments as the usage line shows them: `<site_id>`, `[paths…]`. */
  args?: string;
  /** How many positional arguments it takes (none unless said). */
  positionals?: { min?: number; max?: number };
  /** One line of `sitevoice --help`. */
  summary: string;
  /** The help page's text: what it does, what it prints, when it fails. */
  description: string;
  options: O;
  /** Whole command lines that work as written. */
  examples: string[];
  /**
   * Imports the command's code, only when it runs: `--help` loads no settings, no store and
   * no plugin, and so can do nothing but answer.
   */
  load(): Promise<CommandRun<O>>;
}

/** A command as the dispatcher holds it, whatever its options. */
export interface Command extends Omit<CommandSpec<OptionSpecs>, "load"> {
  load(): Promise<CommandRun<OptionSpecs>>;
}

/** A command's declaration, typed so its code reads the options it declares. */
export function defineCommand<const O extends OptionSpecs>(spec: CommandSpec<O>): Command {
  // The dispatcher parses by `spec.options` alone, so the values it passes are a ValuesOf<O>.
  return spec as unknown as Command;
}

/** `keys create [--name N] …`: the command's words, arguments and options, as usage shows them. */
export function synopsis(command: Command): string {
  const options = Object.entries(command.options).map(
    ([name, option]) => `[--${name}${option.value === undefined ? "" : ` ${option.value}`}]`,
  );
  return [command.name, ...(command.args === undefined ? [] : [command.args]), ...options].join(
    " ",
  );
}
