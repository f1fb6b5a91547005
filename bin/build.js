#!/usr/bin/env node
// `npm run build`: the published package's JavaScript and types in dist/. The service itself runs
// its TypeScript sources through tsx and needs none of this.
//
// The modules find their files (prompt templates, example sites, the dashboard, the widget's
// sources) by paths relative to themselves, so those folders are copied into dist/ where the
// same relative paths reach them.
//
// tsc rewrites the sources' `.ts` import specifiers in the JavaScript it emits but not in the
// declaration files, where a consumer's TypeScript would look for sources that are not shipped:
// those are rewritten here to `.js`, which TypeScript maps to the `.d.ts` beside it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const ASSET_DIRS = ["templates", "sites", "dashboard", "examples"];
/** The widget is bundled from its TypeScript sources at run time (core/widget/widget-bundle.ts). */
const WIDGET_ENTRY = "widget/src/main.ts";

fs.rmSync(`${root}dist`, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", `${root}tsconfig.build.json`], { stdio: "inherit" });
rewriteDeclarationSpecifiers(`${root}dist`);
for (const dir of ASSET_DIRS) {
  fs.cpSync(`${root}${dir}`, `${root}dist/${dir}`, { recursive: true });
}
copySourcesFrom(WIDGET_ENTRY);

/** `from "./x.ts"` and `import("./x.ts")` in every .d.ts under `dir` become `.js`. */
function rewriteDeclarationSpecifiers(dir) {
  for (const entry of fs.readdirSync(dir, { recursive: true })) {
    if (!entry.endsWith(".d.ts")) continue;
    const file = `${dir}/${entry}`;
    const text = fs.readFileSync(file, "utf8");
    const rewritten = text.replace(/((?:from|import\()\s*")(\.\.?\/[^"]*)\.ts"/g, '$1$2.js"');
    if (rewritten !== text) fs.writeFileSync(file, rewritten);
  }
}

/** `file` and every .ts module it reaches through relative imports, as sources into dist/. */
function copySourcesFrom(file, copied = new Set()) {
  if (copied.has(file)) return;
  copied.add(file);
  const text = fs.readFileSync(`${root}${file}`, "utf8");
  fs.mkdirSync(path.dirname(`${root}dist/${file}`), { recursive: true });
  fs.writeFileSync(`${root}dist/${file}`, text);
  for (const [, specifier] of text.matchAll(/(?:from|import\()\s*"(\.\.?\/[^"]*\.ts)"/g)) {
    copySourcesFrom(path.posix.join(path.posix.dirname(file), specifier), copied);
  }
}
