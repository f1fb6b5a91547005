#!/usr/bin/env node
/**
 * The API report: what each public entry point of package.json `exports` declares, as the
 * build's .d.ts files in dist/ have it (`npm run build` first; `npm run api:check` does), in api/<entry>.api.d.ts. A change of the public contract shows
 * up as a change of a committed file, so it is made on purpose and reviewed (api-extractor's
 * reports, without its limits on `.ts` import specifiers).
 *
 * Each report holds the declaration files an entry point reaches through relative imports, in
 * path order, comments removed (a reworded TSDoc is not an API change), then the packages they
 * name. Another entry point (`sitevoice/sql` from `sitevoice/testing`) is named, not inlined.
 *
 *   npm run api:report   build, then rewrite the reports
 *   npm run api:check    build, then write nothing; exit 1 naming each report that differs
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = fileURLToPath(new URL("..", import.meta.url));
const reportDir = path.join(root, "api");
const distDir = path.join(root, "dist");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const printer = ts.createPrinter({ removeComments: true });

/** `.` → `sitevoice`, `./sql` → `sitevoice-sql`: the report's file name. */
function reportName(entry) {
  return entry === "." ? pkg.name : `${pkg.name}-${entry.slice(2).replaceAll("/", "-")}`;
}

/** The module specifiers of a declaration file's imports and re-exports. */
function specifiers(source) {
  const found = [];
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function report(entry, types) {
  const start = path.join(root, types);
  const files = new Map();
  const packages = new Set();
  const pending = [start];
  while (pending.length > 0) {
    const file = pending.pop();
    if (files.has(file)) continue;
    const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
    files.set(file, printer.printFile(source));
    for (const specifier of specifiers(source)) {
      if (specifier.startsWith(".")) {
        pending.push(path.resolve(path.dirname(file), specifier.replace(/\.js$/, ".d.ts")));
      } else if (!specifier.startsWith("node:")) {
        packages.add(specifier);
      }
    }
  }
  const sections = [...files]
    .map(([file, text]) => [path.relative(distDir, file), text])
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([file, text]) => `// ${file}\n${text}`);
  const header =
    `// API report of "${path.posix.join(pkg.name, entry)}", made by bin/api-report.js: do not edit.\n` +
    `// Packages its types name: ${[...packages].sort().join(", ") || "none"}.\n`;
  return `${header}\n${sections.join("\n")}`;
}

const check = process.argv.includes("--check");
const differing = [];
if (!check) fs.mkdirSync(reportDir, { recursive: true });
for (const [entry, target] of Object.entries(pkg.exports)) {
  if (typeof target !== "object" || target.types === undefined) continue;
  const file = path.join(reportDir, `${reportName(entry)}.api.d.ts`);
  const content = report(entry, target.types);
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
  if (content === current) continue;
  differing.push(path.relative(root, file));
  if (!check) fs.writeFileSync(file, content);
}
if (check && differing.length > 0) {
  console.error(
    `The public API changed: ${differing.join(", ")} differ(s) from the build. ` +
      "If the change is meant, run `npm run api:report` and commit the reports.",
  );
  process.exit(1);
}
if (!check) console.log(differing.length > 0 ? `wrote ${differing.join(", ")}` : "no change");
