/**
 * The service's parts as a CLI command uses them: composed by compose.ts like the service's,
 * logging only warnings and worse so a command's own lines stay readable, and closed again when
 * the command is done.
 */
import type { Logger } from "pino";
import { composeParts, createLogger, type ServiceParts } from "../compose.ts";
import type { Settings } from "../settings.ts";

/**
 * A command's logger: the settings' level, but never chattier than warnings, so a command's own
 * lines are not buried in JSON (a warning, such as a generated master key, still shows).
 */
export function commandLogger(settings: Readonly<Settings>): Logger {
  const quiet = ["info", "debug", "trace"].includes(settings.logLevel);
  return createLogger(quiet ? { ...settings, logLevel: "warn" } : settings);
}

/** Runs `work` on the service's parts (compose.ts), closed again afterwards. */
export async function withParts<T>(
  settings: Readonly<Settings>,
  work: (parts: ServiceParts) => Promise<T>,
): Promise<T> {
  const parts = await composeParts(settings, commandLogger(settings));
  try {
    return await work(parts);
  } finally {
    await parts.close();
  }
}
