/**
 * Writes changes into the text of a YAML file by touching only the lines of what changed, so the
 * comments, key order, blank lines and line wrapping of everything else stay as their author wrote
 * them. Re-rendering the whole file with the yaml library's Document API also keeps comments, but
 * re-wraps every folded paragraph and respaces flow lists; that is the fallback, taken whenever
 * an edit is not one of the simple shapes below or the edited text would not read back as meant.
 */
import { isDeepStrictEqual } from "node:util";
import { isMap, isScalar, parseDocument, stringify } from "yaml";
import type { Document, Pair, Scalar, YAMLMap } from "yaml";
import { ownValue, setOwn } from "../../util/own.ts";

/** Set the value at `path`, or remove the key when `value` is undefined. */
export interface YamlEdit {
  path: string[];
  value?: unknown;
}

interface Splice {
  start: number;
  end: number;
  text: string;
}

const RENDER = { lineWidth: 0, flowCollectionPadding: false } as const;

/** `text` with `edits` applied. The parent mapping of every edited key must exist in the file. */
export function editYaml(text: string, edits: YamlEdit[]): string {
  const document = parseDocument(text);
  const expected = document.toJS() as unknown;
  for (const edit of edits) applyToData(expected, edit);

  const splices: Splice[] = [];
  for (const edit of edits) {
    const splice = spliceFor(document, text, edit);
    if (splice === undefined) return rerender(text, edits);
    if (splice !== null) splices.push(splice);
  }
  splices.sort((a, b) => b.start - a.start);
  let edited = text;
  let limit = Infinity;
  for (const splice of splices) {
    if (splice.end > limit) return rerender(text, edits); // overlapping edits
    edited = edited.slice(0, splice.start) + splice.text + edited.slice(splice.end);
    limit = splice.start;
  }
  const check = parseDocument(edited);
  if (check.errors.length > 0 || !isDeepStrictEqual(check.toJS(), expected)) {
    return rerender(text, edits);
  }
  return edited;
}

/** The fallback: the Document API's edit and render (comments kept, layout may change). */
function rerender(text: string, edits: YamlEdit[]): string {
  const document = parseDocument(text);
  for (const { path, value } of edits) {
    if (value === undefined) document.deleteIn(path);
    else document.setIn(path, document.createNode(value));
  }
  return document.toString(RENDER);
}

/** The splice for one edit; null when there is nothing to do, undefined when it needs rerender. */
function spliceFor(document: Document, text: string, edit: YamlEdit): Splice | null | undefined {
  const parent =
    edit.path.length === 1 ? document.contents : document.getIn(edit.path.slice(0, -1), true);
  if (!isMap(parent)) return undefined;
  const map = parent as YAMLMap;
  const key = edit.path.at(-1) as string;
  const pair = (map.items as Pair[]).find((p) => isScalar(p.key) && String(p.key.value) === key);
  const value = edit.value;

  if (map.flow) {
    // Inside `{ a: 1 }` only a scalar is replaced in place, written as JSON (valid in a flow).
    if (pair === undefined || value === undefined || !isScalar(pair.value) || !isPrimitive(value)) {
      return undefined;
    }
    const range = pair.value.range;
    return range ? { start: range[0], end: range[1], text: JSON.stringify(value) } : undefined;
  }

  const indent = indentOf(text, map);
  if (indent === undefined) return undefined;
  if (pair === undefined) {
    if (value === undefined) return null;
    const last = map.items.at(-1) as Pair | undefined;
    if (last === undefined) return undefined;
    const at = lineEnd(text, endOf(last));
    return {
      start: at,
      end: at,
      text: (text[at - 1] === "\n" ? "" : "\n") + renderPair(key, value, indent),
    };
  }

  const whole = {
    start: lineStart(text, (pair.key as Scalar).range?.[0] ?? 0),
    end: lineEnd(text, endOf(pair)),
  };
  if (value === undefined) return { ...whole, text: "" };
  const node = pair.value;
  if (isScalar(node) && node.range && isPrimitive(value) && isInline(node.type)) {
    const rendered = stringify(value, RENDER).trimEnd();
    if (!rendered.includes("\n"))
      return { start: node.range[0], end: node.range[1], text: rendered };
  }
  if (node !== null && !isScalar(node) && (node as YAMLMap).flow && (node as YAMLMap).range) {
    const rendered = stringify(value, { ...RENDER, collectionStyle: "flow" }).trimEnd();
    const [start, end] = (node as YAMLMap).range as [number, number, number];
    if (!rendered.includes("\n")) return { start, end, text: rendered };
  }
  return { ...whole, text: renderPair(key, value, indent) };
}

function renderPair(key: string, value: unknown, indent: number): string {
  const lines = stringify({ [key]: value }, RENDER)
    .trimEnd()
    .split("\n");
  return lines.map((line) => (line === "" ? line : " ".repeat(indent) + line)).join("\n") + "\n";
}

const isPrimitive = (value: unknown) =>
  value === null || ["string", "number", "boolean"].includes(typeof value);

const isInline = (type: Scalar["type"]) =>
  type === undefined || type === "PLAIN" || type === "QUOTE_DOUBLE" || type === "QUOTE_SINGLE";

/** The column the keys of a block mapping start at. */
function indentOf(text: string, map: YAMLMap): number | undefined {
  const first = (map.items[0] as Pair | undefined)?.key as Scalar | undefined;
  const offset = first?.range?.[0];
  return offset === undefined ? undefined : offset - lineStart(text, offset);
}

function endOf(pair: Pair): number {
  const node = (pair.value ?? pair.key) as Scalar | null;
  return node?.range?.[1] ?? 0;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

/** The start of the line after the one holding `offset`; a range may already end there. */
function lineEnd(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === "\n") return offset;
  const newline = text.indexOf("\n", offset);
  return newline === -1 ? text.length : newline + 1;
}

/** Applies `edit` to the parsed file; every key is an own property (even one named __proto__). */
function applyToData(data: unknown, { path, value }: YamlEdit) {
  let node = data as object;
  for (const key of path.slice(0, -1)) {
    const next = ownValue(node, key);
    if (typeof next === "object" && next !== null) {
      node = next;
    } else {
      const created = {};
      setOwn(node, key, created);
      node = created;
    }
  }
  const key = path.at(-1) as string;
  if (value === undefined) delete (node as Record<string, unknown>)[key];
  else setOwn(node, key, structuredClone(value));
}
