/**
 * The crawler's User-Agent, `Sitevoice-Crawler/<version> (+<contact URL>)`: the product token
 * robots.txt rules are read for (`User-agent: Sitevoice-Crawler`), the version of this package,
 * and where a site owner reads what the crawler does.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const CRAWLER_PRODUCT = "Sitevoice-Crawler";

let version: string | undefined;

/** The version in the package.json nearest above this module (the source tree or the build). */
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

export function crawlerUserAgent(contactUrl: string): string {
  return `${CRAWLER_PRODUCT}/${packageVersion()} (+${contactUrl})`;
}
