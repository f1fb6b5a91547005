/**
 * This package's version, from the package.json nearest above this module: the source tree's or,
 * installed, the package's own (the build's modules sit in dist/, below it).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let version: string | undefined;

export function packageVersion(): string {
  if (version !== undefined) return version;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "sitevoice" && pkg.version !== undefined) return (version = pkg.version);
    }
    const parent = path.dirname(dir);
    if (parent === dir) return (version = "0.0.0");
    dir = parent;
  }
}
