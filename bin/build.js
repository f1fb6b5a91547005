#!/usr/bin/env node
// `npm run build`: the published package's JavaScript and types in dist/. The service itself runs
// its TypeScript sources through tsx and needs none of this.
//
// The modules find their files (prompt templates, example sites, the dashboard, the widget's
// sources) by paths relative to themselves, so those folders are copied into dist/ where the
// same relative paths reach them.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const ASSET_DIRS = ["templates", "sites", "dashboard", "examples", "widget/src"];

fs.rmSync(`${root}dist`, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", `${root}tsconfig.build.json`], { stdio: "inherit" });
for (const dir of ASSET_DIRS) {
  fs.cpSync(`${root}${dir}`, `${root}dist/${dir}`, { recursive: true, force: false });
}
