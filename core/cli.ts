/**
 * `sitevoice <command>`: hands argv to the one dispatcher (cli/dispatch.ts), which answers
 * `--help` from the commands' declarations (cli/command-table.ts) before anything is loaded,
 * and otherwise reads the same settings as the service and runs the command. A bad call or a bad
 * setting prints one line naming it and exits 1, as does any other failure.
 */
import { commandTable } from "./cli/command-table.ts";
import { dispatch } from "./cli/dispatch.ts";
import { isServiceError } from "./errors.ts";
import { loadSettings, SettingsError } from "./settings.ts";

// Output piped into a reader that stops early (`sitevoice widget info | head`) ends quietly.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

dispatch(process.argv.slice(2), commandTable, {
  settings: () => loadSettings(),
  out: (text) => process.stdout.write(text),
}).catch((error: unknown) => {
  if (error instanceof SettingsError) console.error(`sitevoice: ${error.message}`);
  else if (isServiceError(error))
    console.error(
      `sitevoice: ${error.message}${error.details.field ? ` (${String(error.details.field)})` : ""}`,
    );
  else {
    // One plain line; the stack only when asked for, so a refused plugin reads as one message.
    console.error(`sitevoice: ${error instanceof Error ? error.message : String(error)}`);
    if (process.env.LOG_LEVEL === "debug" && error instanceof Error) console.error(error.stack);
  }
  process.exit(1);
});
