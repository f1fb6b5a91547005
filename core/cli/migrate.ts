/**
 * `sitevoice migrate`: brings the database schema up to date, which opening the store does on its
 * own; the command only opens and closes it (no plugins, so it runs while they are broken).
 */
import type { Settings } from "../settings.ts";
import { withStore } from "./command-parts.ts";

export async function migrate(settings: Readonly<Settings>) {
  return withStore(settings, async () => console.log("database is up to date"));
}
