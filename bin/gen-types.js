#!/usr/bin/env node
/**
 * Generates core/types/generated/<name>.ts from every schemas/<name>.schema.json, and
 * plugins/<plugin>/generated/config.ts from each built-in plugin's own config.schema.json, with
 * json-schema-to-typescript. Schemas are the source of truth; the types follow them.
 *
 *   node bin/gen-types.js          write the files whose content changed
 *   node bin/gen-types.js --check  write nothing; exit 1 listing stale, missing or orphaned files
 */
import { readdir, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";
import prettier from "prettier";

const root = fileURLToPath(new URL("..", import.meta.url));
const schemasDir = join(root, "schemas");
const outDir = join(root, "core", "types", "generated");
const pluginsDir = join(root, "plugins");
const suffix = ".schema.json";
/** How every generated file starts; a file without it is someone's own and left alone. */
const bannerStart = "/* Generated from ";

/*
 * The schemas are written for validation and documentation; json-schema-to-typescript reads some
 * of their constructs in ways that make poor types. Each schema is therefore rewritten, for type
 * generation only, by the steps below. The validator always uses the files as written.
 */

const schemaMaps = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);
const schemaLists = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const schemaValues = new Set([
  "items",
  "additionalProperties",
  "propertyNames",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
]);

/** Rebuilds a schema bottom-up, calling `visit` on every subschema after its children. */
function mapSchema(schema, visit, path = []) {
  if (typeof schema !== "object" || schema === null) return schema;
  const copy = {};
  for (const [key, value] of Object.entries(schema)) {
    if (schemaMaps.has(key)) {
      copy[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [
          name,
          mapSchema(sub, visit, [...path, key, name]),
        ]),
      );
    } else if (schemaLists.has(key)) {
      copy[key] = value.map((sub, index) => mapSchema(sub, visit, [...path, key, String(index)]));
    } else if (schemaValues.has(key)) {
      copy[key] = mapSchema(value, visit, [...path, key]);
    } else {
      copy[key] = value;
    }
  }
  return visit(copy, path);
}

function omit(object, ...keys) {
  const copy = { ...object };
  for (const key of keys) delete copy[key];
  return copy;
}

function pointerGet(document, pointer) {
  return pointer
    .split("/")
    .slice(1)
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce((node, token) => node?.[token], document);
}

/**
 * 1. References into other files are resolved here, so every type file stands alone and names the
 *    shared definitions the same way: a reference to another file's `$defs` entry becomes a local
 *    one (the entry is copied into this schema's `$defs`), and a reference to another file's
 *    `properties` (site-create reusing SiteConfig's fields) is replaced by a copy of its target,
 *    so request types read like SiteConfig instead of gaining one alias per field.
 */
function bundleForeignRefs(schema, file, documents) {
  const defs = { ...schema.$defs };
  const rewrite = (node) =>
    mapSchema(node, (inner) => {
      if (typeof inner.$ref !== "string" || inner.$ref.startsWith("#")) return inner;
      const [targetFile, pointer = ""] = inner.$ref.split("#");
      const document = documents.get(targetFile);
      if (document === undefined) throw new Error(`${file}: $ref to unknown file ${inner.$ref}`);
      for (const [name, definition] of Object.entries(document.$defs ?? {})) {
        if (name in defs && JSON.stringify(defs[name]) !== JSON.stringify(definition)) {
          throw new Error(`${file}: $defs/${name} differs from the one in ${targetFile}`);
        }
        defs[name] = definition;
      }
      if (pointer.startsWith("/$defs/")) return { ...inner, $ref: `#${pointer}` };
      const target = pointerGet(document, pointer);
      if (target === undefined) throw new Error(`${file}: unresolved $ref ${inner.$ref}`);
      // The target's references to its own non-$defs parts are foreign from here.
      const rebased = mapSchema(target, (ref) =>
        typeof ref.$ref === "string" && ref.$ref.startsWith("#") && !ref.$ref.startsWith("#/$defs/")
          ? { ...ref, $ref: `${targetFile}${ref.$ref}` }
          : ref,
      );
      if (pointer === "") {
        // A whole other schema (the usage event batch's items) becomes a local definition named
        // as that schema's own root type, rather than one named after its $id.
        const name = pascalCase(document.title);
        const definition = omit(rewrite(rebased), "$schema", "$id", "title", "$defs");
        if (name in defs && JSON.stringify(defs[name]) !== JSON.stringify(definition)) {
          throw new Error(`${file}: $defs/${name} clashes with the schema ${targetFile}`);
        }
        defs[name] = definition;
        return { ...omit(inner, "$ref"), $ref: `#/$defs/${name}` };
      }
      return { ...rewrite(rebased), ...omit(inner, "$ref") };
    });
  const bundled = rewrite(schema);
  return Object.keys(defs).length === 0 ? bundled : { ...bundled, $defs: defs };
}

/**
 * 2. `$ref` beside annotations (a property documenting a shared definition) is merged by the ref
 *    parser into a new, separately named copy of the definition (`PagePatternList1`). Wrapping the
 *    reference in `allOf` keeps the definition's name and the property's own description.
 */
function wrapAnnotatedRefs(node) {
  if (typeof node.$ref !== "string" || Object.keys(node).length === 1) return node;
  const { $ref, ...siblings } = node;
  return { ...siblings, allOf: [{ $ref }, ...(siblings.allOf ?? [])] };
}

/**
 * 3. json-schema-to-typescript ignores `if`/`then`. A property that a conditional narrows (the
 *    adapter's `config` by its `type`) is typed as the union of the narrowed schemas and its own,
 *    so RestAdapterConfig and its kin are generated; the conditionals themselves are dropped.
 */
function unionConditionalProperties(node) {
  if (node.properties === undefined) return node;
  const conditionals = [node, ...(node.allOf ?? [])].filter((sub) => sub.then !== undefined);
  if (conditionals.length === 0) return node;
  const narrowedBy = new Map();
  for (const { then } of conditionals) {
    for (const [name, narrowed] of Object.entries(then.properties ?? {})) {
      if (typeof narrowed !== "object" || node.properties?.[name] === undefined) continue;
      // Narrowed by assertions only (a pattern on the SQL adapters' sources): no other type.
      if (!addsType(narrowed)) continue;
      narrowedBy.set(name, [...(narrowedBy.get(name) ?? []), narrowed]);
    }
  }
  const properties = { ...node.properties };
  for (const [name, narrowed] of narrowedBy) {
    const { title, description, examples, default: fallback, ...own } = properties[name];
    const annotations = { title, description, examples, default: fallback };
    for (const key of Object.keys(annotations)) {
      if (annotations[key] === undefined) delete annotations[key];
    }
    properties[name] = { ...annotations, anyOf: [...narrowed, own] };
  }
  const rest = omit(node, "if", "then", "else");
  const allOf = (rest.allOf ?? []).filter((sub) => sub.then === undefined);
  if (allOf.length === 0) delete rest.allOf;
  else rest.allOf = allOf;
  return { ...rest, properties };
}

/**
 * 4. An `allOf` member that only asserts (the `format` and `pattern` rules of `baseUrl`) adds no
 *    type, but json-schema-to-typescript reads it as an open object (`{[k: string]: unknown} &
 *    string`). Such members are dropped.
 */
const typeKeywords = [
  "$ref",
  "type",
  "properties",
  "items",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
];

/**
 * Whether a schema, or any schema inside it, names a type of its own (a definition, an enum, a
 * constant). One that only restates plain types to assert a pattern deeper down (the SQL
 * adapters' rule on a collection's `source`) adds nothing to the property's own type.
 */
function addsType(schema) {
  if (typeof schema !== "object" || schema === null) return false;
  if (["$ref", "enum", "const"].some((keyword) => keyword in schema)) return true;
  return Object.entries(schema).some(([key, value]) => {
    if (schemaMaps.has(key)) return Object.values(value).some(addsType);
    if (schemaLists.has(key)) return value.some(addsType);
    return schemaValues.has(key) && addsType(value);
  });
}

function dropAssertionOnlyMembers(node) {
  if (node.allOf === undefined) return node;
  const allOf = node.allOf.filter((member) => typeKeywords.some((keyword) => keyword in member));
  return allOf.length === 0 ? omit(node, "allOf") : { ...node, allOf };
}

/**
 * 5. Titles document the schema, but json-schema-to-typescript turns every titled subschema into a
 *    named type (`type BusinessName = string`, numbered on clashes). Only the root keeps its title.
 */
function dropNestedTitles(node, path) {
  if (path.length === 0 || node.title === undefined) return node;
  return omit(node, "title");
}

function forTypes(schema, file, documents) {
  const bundled = bundleForeignRefs(schema, file, documents);
  return mapSchema(bundled, (node, path) =>
    dropNestedTitles(
      dropAssertionOnlyMembers(unionConditionalProperties(wrapAnnotatedRefs(node))),
      path,
    ),
  );
}

async function loadSchemas() {
  const files = (await readdir(schemasDir)).filter((file) => file.endsWith(suffix)).sort();
  const documents = new Map();
  for (const file of files) {
    documents.set(file, JSON.parse(await readFile(join(schemasDir, file), "utf8")));
  }
  const prepared = new Map();
  for (const [file, schema] of documents) {
    const outFile = join(outDir, `${basename(file, suffix)}.ts`);
    prepared.set(file, {
      schema: forTypes(schema, file, documents),
      outFile,
      label: `schemas/${file}`,
    });
  }
  // Each built-in plugin owns its config schema, which stands alone.
  for (const plugin of (await readdir(pluginsDir, { withFileTypes: true })).filter((e) =>
    e.isDirectory(),
  )) {
    const path = join(pluginsDir, plugin.name, "config.schema.json");
    const text = await readIfExists(path);
    if (text === undefined) continue;
    const schema = JSON.parse(text);
    prepared.set(path, {
      schema: forTypes(schema, path, documents),
      outFile: join(pluginsDir, plugin.name, "generated", "config.ts"),
      label: `plugins/${plugin.name}/config.schema.json`,
    });
  }
  return prepared;
}

async function generate(file, schemas) {
  const { schema, outFile, label } = schemas.get(file);
  const name = basename(outFile, ".ts");
  const banner = `${bannerStart}${label} by npm run gen:types. Do not edit. */`;
  const code = await compile(schema, name, {
    bannerComment: banner,
    // The root type is named after the schema's title in PascalCase ("API key create request" →
    // ApiKeyCreateRequest rather than APIKeyCreateRequest).
    customName: (node) => (node.$id === schema.$id ? pascalCase(schema.title) : undefined),
    cwd: schemasDir,
    // Foreign references were bundled above; anything left must fail rather than be fetched.
    $refOptions: { resolve: { http: false, file: false } },
    declareExternallyReferenced: true,
    unreachableDefinitions: false,
    // Array bounds (maxItems 20, 50, …) are checked by the validator, not spelled out as tuples.
    ignoreMinAndMaxItems: true,
    maxItems: -1,
    unknownAny: true,
    // Formatted below with the repo's own prettier config.
    format: false,
  });
  const style = (await prettier.resolveConfig(outFile)) ?? {};
  const formatted = await prettier.format(code, { ...style, filepath: outFile });
  return { outFile, content: formatted };
}

function pascalCase(title) {
  return title
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1).toLowerCase())
    .join("");
}

async function readIfExists(path) {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (error.code === "ENOENT") return undefined;
    throw error;
  }
}

async function main() {
  const check = process.argv.includes("--check");
  const schemas = await loadSchemas();
  const expected = new Set();
  const stale = [];
  for (const file of schemas.keys()) {
    const { outFile, content } = await generate(file, schemas);
    if (!check) await mkdir(dirname(outFile), { recursive: true });
    expected.add(outFile);
    const current = await readIfExists(outFile);
    if (current === content) continue;
    const label = relative(root, outFile);
    stale.push(current === undefined ? `${label} (missing)` : `${label} (stale)`);
    if (!check) await writeFile(outFile, content);
  }

  // A generated file whose schema is gone would keep exporting types nothing validates: in
  // core/types/generated and in each plugin's generated/. Files without our banner (someone's
  // index.ts) are left alone.
  const plugins = await readdir(pluginsDir, { withFileTypes: true });
  const generatedDirs = [
    outDir,
    ...plugins.filter((p) => p.isDirectory()).map((p) => join(pluginsDir, p.name, "generated")),
  ];
  const paths = [];
  for (const dir of generatedDirs) {
    const entries = await readdir(dir).catch((error) => {
      if (error.code === "ENOENT") return [];
      throw error;
    });
    paths.push(...entries.map((entry) => join(dir, entry)));
  }
  for (const path of paths) {
    if (!path.endsWith(".ts") || expected.has(path)) continue;
    if (!(await readFile(path, "utf8")).startsWith(bannerStart)) continue;
    stale.push(`${relative(root, path)} (no schema)`);
    if (!check) await rm(path);
  }

  if (check) {
    if (stale.length > 0) {
      console.error("generated types are out of date; run npm run gen:types:");
      for (const line of stale) console.error(`  ${line}`);
      process.exit(1);
    }
    console.log("generated types are current");
  } else {
    console.log(
      stale.length === 0 ? "generated types are current" : `updated:\n  ${stale.join("\n  ")}`,
    );
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
