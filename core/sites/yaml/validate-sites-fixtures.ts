/** What the validateSiteFiles tests share: the repository's folder, and problems written short. */
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import type { SiteProblem } from "./site-file.ts";

export const repo = fileURLToPath(new URL("../../../", import.meta.url));

/** A problem as the tests write it: the file's name instead of its full path. */
export const short = ({ path, ...rest }: SiteProblem) => ({ file: basename(path), ...rest });
