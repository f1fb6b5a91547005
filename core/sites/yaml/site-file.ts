/**
 * Reads one site file of `sites/` into plain data, refusing what YAML allows but a config file
 * must not hold (other encodings, duplicate keys, alias floods, nesting past MAX_NESTING_DEPTH,
 * several documents), and keeps the parsed Document so every later problem can be reported at its
 * line and column.
 */
import { readFileSync } from "node:fs";
import { LineCounter, isAlias, isMap, isPair, isScalar, isSeq, parseDocument, visit } from "yaml";
import type { Document, Node as YamlNode, Pair, YAMLError } from "yaml";
import { nestsDeeperThan } from "../../validation/nesting-depth.ts";
import { tooDeepYaml, tooDeepYamlAt } from "./yaml-depth.ts";

/** One mistake in a site file, where it is and what is wrong. */
export interface SiteProblem {
  /** The file, as an absolute path (the formatter makes it relative). */
  path: string;
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
  /** Dotted path of the field, such as `adapter.config.baseUrl`; `""` when about the whole file. */
  field: string;
  message: string;
}

/** A 1-based line and column. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** A parsed site file. */
export interface SiteFile {
  path: string;
  /** The file's mapping as plain data; undefined when the file could not be read as one. */
  data?: Record<string, unknown>;
  /** The parsed YAML document, kept for positions; undefined when the text never got parsed. */
  document?: Document;
  /** What was refused while reading; more are added by validation. */
  problems: SiteProblem[];
  /**
   * Where a dotted field (as validators name them: `adapter.config.baseUrl`, `additional_domains.0`)
   * is written: the key of a mapping entry, the item of a sequence. A path that goes further than
   * the file does stops at its deepest existing part, so a missing required key points at the
   * mapping that should hold it; `""` is the start of the document.
   */
  locate(field: string): SourcePosition;
}

/**
 * Anchors and aliases are legitimate YAML, but a few nested aliases can expand a small file into
 * gigabytes ("billion laughs"). A site file needs few, if any.
 */
export const MAX_ALIAS_COUNT = 100;

/** A site config is a page of text; anything far bigger is a mistake or an attack. */
export const MAX_SITE_FILE_BYTES = 1024 * 1024;

const START: SourcePosition = { line: 1, column: 1 };

/** Reads and parses the site file at `path` (synchronously, as a CLI reads a handful of files). */
export function readSiteFile(path: string): SiteFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : undefined;
    return unreadable(path, `cannot read the file: ${reason ?? (error as Error).message}`);
  }
  return parseSiteFile(bytes, path);
}

/** A file that could not be read at all, with one problem saying why (at its start by default). */
export function unreadable(path: string, message: string, position = START): SiteFile {
  return {
    path,
    problems: [{ path, ...position, field: "", message }],
    locate: () => START,
  };
}

/**
 * Parses the bytes of a site file. Never throws for bad input: every refusal becomes a problem,
 * and `data` is set only when the file is one clean YAML mapping.
 */
export function parseSiteFile(bytes: Buffer, path: string): SiteFile {
  if (bytes.length > MAX_SITE_FILE_BYTES) {
    return unreadable(path, `file is larger than ${MAX_SITE_FILE_BYTES / 1024 / 1024} MiB`);
  }
  let text: string;
  try {
    // fatal: a Latin-1 or UTF-16 file is refused rather than silently garbled; a BOM is dropped.
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const { offset, position } = firstInvalidByte(bytes);
    const byte = bytes[offset]?.toString(16).toUpperCase().padStart(2, "0") ?? "??";
    return unreadable(path, `file is not UTF-8 text (byte 0x${byte}); save it as UTF-8`, position);
  }

  // Composing recurses once per level: a text nested past the limit is refused before it is.
  const deep = tooDeepYamlAt(text);
  if (deep !== undefined) return unreadable(path, tooDeepYaml(), deep);

  const lineCounter = new LineCounter();
  // prettyErrors is off on purpose: it appends a multi-line source excerpt to each message, while
  // the CLI prints one line per problem with the position taken from lineCounter.
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: false, lineCounter });
  const at = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const locate = (field: string) => locateIn(document, field, at);
  const file: SiteFile = { path, document, problems: [], locate };
  const problem = (position: SourcePosition, field: string, message: string) =>
    file.problems.push({ path, ...position, field, message });

  for (const error of document.errors) {
    problem(at(error.pos[0]), ...describeYamlError(error, document));
  }
  if (file.problems.length > 0) return file;

  const root = document.contents;
  if (!isMap(root)) {
    const what =
      root === null ? "is empty" : `holds ${isSeq(root) ? "a list" : "a single value"} at the top`;
    problem(root?.range ? at(root.range[0]) : START, "", `${fileMustBeMapping} (it ${what})`);
    return file;
  }

  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // toJS throws only over aliases (the limit, one it cannot resolve, or a chain of them nesting
    // deeper than the stack allows); parse errors came before.
    const message = error instanceof Error ? error.message : String(error);
    const flood = message.includes("Excessive alias count");
    problem(
      firstAliasPosition(document, at),
      "",
      flood
        ? "too many YAML aliases (possible alias bomb)"
        : error instanceof RangeError
          ? tooDeepYaml(true)
          : `invalid YAML: ${message}`,
    );
    return file;
  }
  // The text was within the limit; aliases inside aliases may still have nested it past it.
  if (nestsDeeperThan(data)) {
    problem(firstAliasPosition(document, at), "", tooDeepYaml(true));
    return file;
  }
  file.data = data as Record<string, unknown>;
  return file;
}

const fileMustBeMapping = "a site file must be a YAML mapping of site fields (key: value lines)";

/** The field and message of a YAML error, in the words of this service. */
function describeYamlError(error: YAMLError, document: Document): [field: string, message: string] {
  switch (error.code) {
    case "DUPLICATE_KEY": {
      const field = pathOfKeyAt(document, error.pos[0]);
      const key = field?.split(".").pop() ?? "?";
      return [field ?? "", `duplicate key "${key}" (each key may appear only once in a mapping)`];
    }
    case "MULTIPLE_DOCS":
      return ["", "the file holds more than one YAML document; put each site in a file of its own"];
    default:
      return ["", `invalid YAML: ${error.message}`];
  }
}

/** The dotted path of the mapping key starting at `offset`, for naming a duplicate key. */
function pathOfKeyAt(document: Document, offset: number): string | undefined {
  let found: string | undefined;
  visit(document, {
    Pair(_key, pair, ancestors) {
      if (!isScalar(pair.key) || pair.key.range?.[0] !== offset) return undefined;
      const names: string[] = [];
      ancestors.forEach((node, index) => {
        const next = ancestors[index + 1] ?? pair;
        if (isPair(node) && isScalar(node.key)) names.push(String(node.key.value));
        if (isSeq(node)) names.push(String(node.items.indexOf(next as never)));
      });
      found = [...names, String(pair.key.value)].join(".");
      return visit.BREAK;
    },
  });
  return found;
}

function firstAliasPosition(
  document: Document,
  at: (offset: number) => SourcePosition,
): SourcePosition {
  let position = START;
  visit(document, {
    Alias(_key, alias) {
      if (alias.range) position = at(alias.range[0]);
      return visit.BREAK;
    },
  });
  return position;
}

/** Walks the document along a dotted field; see SiteFile.locate. */
function locateIn(
  document: Document,
  field: string,
  at: (offset: number) => SourcePosition,
): SourcePosition {
  const root = document.contents;
  let position = root?.range ? at(root.range[0]) : START;
  if (field === "") return position;
  const segments = field.split(".");
  let node: unknown = root;
  let index = 0;
  while (index < segments.length) {
    if (isMap(node)) {
      // A key may itself hold dots (a pronunciation of "St. Mary's"): try the longest match first.
      const match = longestKeyMatch(node.items as Pair[], segments, index);
      if (match === undefined) break;
      const { pair, used } = match;
      const where = (pair.key as YamlNode).range ?? (pair.value as YamlNode | null)?.range;
      if (where) position = at(where[0]);
      node = pair.value;
      index += used;
    } else if (isSeq(node)) {
      const item = /^\d+$/.test(segments[index] ?? "") ? node.items[Number(segments[index])] : null;
      const range = (item as YamlNode | null | undefined)?.range;
      if (!range) break;
      position = at(range[0]);
      node = item;
      index += 1;
    } else break;
    // An alias stands for its anchor's node; a field below it is written there.
    if (isAlias(node)) node = node.resolve(document);
  }
  return position;
}

function longestKeyMatch(
  pairs: Pair[],
  segments: string[],
  start: number,
): { pair: Pair; used: number } | undefined {
  for (let used = segments.length - start; used >= 1; used -= 1) {
    const name = segments.slice(start, start + used).join(".");
    const pair = pairs.find((p) => isScalar(p.key) && String(p.key.value) === name);
    if (pair) return { pair, used };
  }
  return undefined;
}

/** The offset of the first byte that breaks UTF-8 and its line and column in the text before it. */
function firstInvalidByte(bytes: Buffer): { offset: number; position: SourcePosition } {
  // The longest prefix that decodes (a sequence cut at its end is not an error with stream: true).
  let low = 0;
  let high = bytes.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (decodes(bytes.subarray(0, mid))) low = mid;
    else high = mid - 1;
  }
  // `low` bytes decode; the bad sequence starts at the first incomplete one among them, if any.
  // ignoreBOM keeps a BOM in the text, so its byte length is the offset of the bad byte.
  const prefix = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.subarray(0, low), {
    stream: true,
  });
  const offset = Buffer.byteLength(prefix, "utf8");
  const lines = prefix.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  const last = lines.at(-1) ?? "";
  return { offset, position: { line: lines.length, column: last.length + 1 } };
}

function decodes(bytes: Buffer): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}
