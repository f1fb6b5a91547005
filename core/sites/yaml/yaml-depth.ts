/**
 * How deeply a YAML text nests its lists and mappings, measured before it is composed: composing
 * recurses once per level and gives up on a deep text with a bare "Maximum call stack size
 * exceeded", while the parser that builds the concrete syntax tree does not recurse. The tree is
 * walked with a stack of its own, so nothing here can overflow either.
 */
import { LineCounter, Parser, type CST } from "yaml";
import { MAX_NESTING_DEPTH } from "../../validation/nesting-depth.ts";

/** What is wrong with a YAML text, or a value with its aliases expanded, nested too deeply. */
export const tooDeepYaml = (expanded = false) =>
  `${expanded ? "with its aliases expanded, " : ""}lists and mappings nest more than ` +
  `${MAX_NESTING_DEPTH} levels deep here (at most ${MAX_NESTING_DEPTH} levels)`;

/**
 * Where the first list or mapping nested more than `max` levels deep starts in `text` (a
 * document's top mapping is level 1), or undefined when none is. Aliases are not followed: the
 * value they stand for is checked once composed (nestsDeeperThan).
 */
export function tooDeepYamlAt(
  text: string,
  max = MAX_NESTING_DEPTH,
): { line: number; column: number } | undefined {
  // Where flow collections surely nest too deep, the text up to there has the same first
  // collection past the limit, and takes the parser no time.
  const flow = flowTooDeepAt(text, max);
  if (flow === undefined) return treeTooDeepAt(text, max);
  return treeTooDeepAt(text.slice(0, flow + 1), max) ?? treeTooDeepAt(text, max);
}

/** tooDeepYamlAt over the parser's concrete syntax tree, walked with a stack of its own. */
function treeTooDeepAt(text: string, max: number): { line: number; column: number } | undefined {
  const lines = new LineCounter();
  const pending: { token: CST.Token; depth: number }[] = [];
  const push = (tokens: (CST.Token | null | undefined)[], depth: number) => {
    // Last first, so tokens are taken in the order they are written and the first found is first.
    for (const token of tokens.reverse()) if (token) pending.push({ token, depth });
  };
  push([...new Parser(lines.addNewLine).parse(text)], 0);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { token, depth } = next;
    if (token.type === "document") push([token.value], depth);
    if (
      token.type === "block-map" ||
      token.type === "block-seq" ||
      token.type === "flow-collection"
    ) {
      if (depth + 1 > max) {
        const { line, col } = lines.linePos(token.offset);
        return { line, column: col };
      }
      push(
        token.items.flatMap((item) => [item.key, item.value]),
        depth + 1,
      );
    }
  }
  return undefined;
}

/**
 * Where, in one pass over the characters, flow collections (`[[[…`, `{a: {b: …`) are first
 * opened more than `max` deep, if they are: the parser takes seconds of CPU over a megabyte of them (3.7 s for
 * 800 KB of `[`), time a request would hold the event loop for before the tree could be walked.
 * A bracket counts where a flow collection may start (at a line's start or after `[ { , : - ?`),
 * so brackets inside words of text do not; an unbalanced run of 65 inside a quoted string would,
 * a price no real site file pays.
 */
function flowTooDeepAt(text: string, max: number): number | undefined {
  let depth = 0;
  let previous = "\n";
  for (let at = 0; at < text.length; at++) {
    const char = text[at] as string;
    if ((char === "[" || char === "{") && "\n[{,:-?".includes(previous)) {
      if (++depth > max) return at;
    } else if ((char === "]" || char === "}") && depth > 0) {
      depth--;
    }
    if (char !== " " && char !== "\t" && char !== "\r") previous = char;
  }
  return undefined;
}
