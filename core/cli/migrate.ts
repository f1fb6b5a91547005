/**
 * `sitevoice migrate`: brings the database schema up to date, which composing the service's parts
 * does on its own; the command only opens and closes them.
 */
import type { Settings } from "../settings.ts";
import { withParts } from "./command-parts.ts";

export async function migrate(settings: Readonly<Settings>) {
  return withParts(settings, async () => console.log("database is up to date"));
}
