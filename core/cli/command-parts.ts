/**
 * The service's parts as a CLI command uses them: composed by compose.ts like the service's,
 * logging only warnings and worse so a command's own lines stay readable, and closed again when
 * the command is done. A command takes no more than it needs: the store alone, the plugins
 * alone, or the whole service, so a broken plugin configuration stops only what uses plugins.
 */
import type { Logger } from "pino";
import {
  composeParts,
  composePlugins,
  composeStore,
  createLogger,
  type InstalledPlugins,
  type ServiceParts,
  type StoreParts,
} from "../compose.ts";
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

/**
 * Runs `work` on the store alone (compose.ts), migrated as the service's, closed again
 * afterwards: no plugin, Redis or site cache, for migrate, keys and secrets. A command that
 * needs the key ring builds it with composeKeyRing.
 */
export async function withStore<T>(
  settings: Readonly<Settings>,
  work: (parts: StoreParts) => Promise<T>,
): Promise<T> {
  const parts = await composeStore(settings, commandLogger(settings));
  try {
    return await work(parts);
  } finally {
    await parts.store.close();
  }
}

/**
 * Runs `work` on the installation's plugins and site rules alone (compose.ts; of the
 * service-wide instances only the prompt templates), closed again afterwards: for the commands
 * that check site files without a store.
 */
export async function withPlugins<T>(
  settings: Readonly<Settings>,
  work: (installed: InstalledPlugins) => Promise<T>,
): Promise<T> {
  const installed = await composePlugins(settings, commandLogger(settings), "prompt-templates");
  try {
    return await work(installed);
  } finally {
    await installed.plugins.close();
  }
}
