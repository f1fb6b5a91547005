/**
 * Where plugins come from: the entry file of each built-in plugin folder, a module imported by
 * file URL or package name, and the label that names a plugin by its source when its definition
 * gives no usable name. Apart from the host, which only registers what these find.
 */
import type { Dirent } from "node:fs";
import { access, readdir } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PluginLoadError } from "./plugin-errors.ts";
import { messageOf } from "../util/message-of.ts";

/**
 * The module of every folder of `dir` (`<folder>/index.ts`, or `index.js` in the compiled build),
 * by folder name, with its source `builtin:<folder>`; a missing `dir` holds no plugins. Yields one
 * at a time, so each is imported and registered before the next folder is looked at.
 */
export async function* builtinModules(
  dir: string,
): AsyncGenerator<{ specifier: string; source: string }> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name);
  for (const folder of folders.sort()) {
    const file = await firstExisting(["index.ts", "index.js"].map((n) => join(dir, folder, n)));
    if (file === undefined) continue;
    yield { specifier: pathToFileURL(file).href, source: `builtin:${folder}` };
  }
}

/** The default export of `specifier`; throws PluginLoadError when it cannot be imported. */
export async function importDefault(specifier: string, source: string): Promise<unknown> {
  try {
    const module = (await import(specifier)) as { default?: unknown };
    return module.default;
  } catch (error) {
    throw new PluginLoadError(`${sourceLabel(source)} could not be imported: ${messageOf(error)}`, {
      source,
      cause: error,
    });
  }
}

/** Names a plugin whose definition gave no usable name, by where it came from. */
export function sourceLabel(source: string): string {
  if (source.startsWith("npm:")) return `package "${source.slice(4)}"`;
  if (source.startsWith("builtin:")) return `built-in plugin "${source.slice(8)}"`;
  return `plugin from ${source}`;
}

async function firstExisting(files: string[]): Promise<string | undefined> {
  for (const file of files) if (await exists(file)) return file;
  return undefined;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
