/**
 * The formula language of Airtable's `filterByFormula`, for the Airtable stand-in
 * (airtable-standin.ts): a parser written from Airtable's formula field reference, not from what
 * any adapter emits, for the subset a search would reasonably use. Functions and their semantics
 * are in airtable-formula-functions.ts.
 *
 * - Field references: `{Field name}`, where `\}` is a `}` of the name (pyAirtable's reading; any
 *   other backslash is itself), or a bare one-word name (`Price`).
 * - Text: in double or single quotes; a backslash makes the next character literal (`\"`, `\'`,
 *   `\\`), and `\n` / `\t` are a newline and a tab.
 * - Numbers: `12`, `12.5`, `.5`. Booleans only as TRUE() and FALSE().
 * - Operators, loosest first: `= != < > <= >=`, then `&` (text concatenation), then `+ -`, then
 *   `* /`, then a unary minus; parentheses group. Function names are case-insensitive.
 * Anything else (an unknown function, a wrong number of arguments, an unterminated string, a stray
 * token) is a FormulaSyntaxError, which the stand-in answers with Airtable's 422
 * INVALID_FILTER_BY_FORMULA.
 */
import { FUNCTIONS, type FormulaNode } from "./airtable-formula-functions.ts";

export type { FormulaNode } from "./airtable-formula-functions.ts";

export class FormulaSyntaxError extends Error {}

type Token =
  | { kind: "number"; value: number }
  | { kind: "string"; value: string }
  | { kind: "field"; value: string }
  | { kind: "name"; value: string }
  | { kind: "symbol"; value: string };

const SYMBOLS = ["!=", "<=", ">=", "=", "<", ">", "&", "+", "-", "*", "/", "(", ")", ","];
const ESCAPES: Record<string, string> = { n: "\n", t: "\t" };

/** The tokens of `text`. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at] as string;
    if (/\s/.test(char)) {
      at++;
    } else if (char === '"' || char === "'") {
      let value = "";
      for (at++; text[at] !== char; at++) {
        if (at >= text.length) throw new FormulaSyntaxError("unterminated text");
        if (text[at] === "\\") {
          at++;
          const next = text[at] ?? "";
          value += ESCAPES[next] ?? next;
        } else value += text[at];
      }
      at++;
      tokens.push({ kind: "string", value });
    } else if (char === "{") {
      let name = "";
      for (at++; text[at] !== "}"; at++) {
        if (at >= text.length) throw new FormulaSyntaxError("unterminated field reference");
        if (text[at] === "\\" && text[at + 1] === "}") at++;
        name += text[at];
      }
      at++;
      if (name === "") throw new FormulaSyntaxError("empty field reference");
      tokens.push({ kind: "field", value: name });
    } else if (/[0-9.]/.test(char)) {
      const match = /^(\d+(\.\d+)?|\.\d+)/.exec(text.slice(at));
      if (match === null) throw new FormulaSyntaxError(`unexpected "${char}"`);
      tokens.push({ kind: "number", value: Number(match[0]) });
      at += match[0].length;
    } else if (/[A-Za-z_]/.test(char)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(at))![0];
      tokens.push({ kind: "name", value: name });
      at += name.length;
    } else {
      const symbol = SYMBOLS.find((s) => text.startsWith(s, at));
      if (symbol === undefined) throw new FormulaSyntaxError(`unexpected "${char}"`);
      tokens.push({ kind: "symbol", value: symbol });
      at += symbol.length;
    }
  }
  return tokens;
}

/** Operator levels, loosest first. */
const LEVELS = [["=", "!=", "<", ">", "<=", ">="], ["&"], ["+", "-"], ["*", "/"]];

/** Parses `text` into a tree; throws FormulaSyntaxError for what Airtable would refuse. */
export function parseFormula(text: string): FormulaNode {
  const tokens = tokenize(text);
  let at = 0;
  const peek = () => tokens[at];
  const isSymbol = (value: string) => peek()?.kind === "symbol" && peek()?.value === value;
  const expect = (value: string) => {
    if (!isSymbol(value)) throw new FormulaSyntaxError(`expected "${value}"`);
    at++;
  };

  const level = (index: number): FormulaNode => {
    if (index === LEVELS.length) return unary();
    let node = level(index + 1);
    for (let token = peek(); token?.kind === "symbol" && LEVELS[index]!.includes(token.value);) {
      at++;
      node = { type: "binary", operator: token.value, left: node, right: level(index + 1) };
      token = peek();
    }
    return node;
  };
  const unary = (): FormulaNode => {
    if (!isSymbol("-")) return primary();
    at++;
    return { type: "unary", operand: unary() };
  };
  const primary = (): FormulaNode => {
    const token = tokens[at++];
    if (token === undefined) throw new FormulaSyntaxError("the formula ends too early");
    if (token.kind === "number" || token.kind === "string") {
      return { type: "literal", value: token.value };
    }
    if (token.kind === "field") return { type: "field", name: token.value };
    if (token.kind === "name") return isSymbol("(") ? call(token.value) : field(token.value);
    if (token.value === "(") {
      const inner = level(0);
      expect(")");
      return inner;
    }
    throw new FormulaSyntaxError(`unexpected "${token.value}"`);
  };
  const field = (name: string): FormulaNode => ({ type: "field", name });
  const call = (written: string): FormulaNode => {
    const name = written.toUpperCase();
    const known = FUNCTIONS[name];
    if (known === undefined) throw new FormulaSyntaxError(`unknown function ${written}`);
    expect("(");
    const args: FormulaNode[] = [];
    if (!isSymbol(")")) {
      args.push(level(0));
      while (isSymbol(",")) {
        at++;
        args.push(level(0));
      }
    }
    expect(")");
    const [min, max] = known.arity;
    if (args.length < min || args.length > max) {
      throw new FormulaSyntaxError(`${name}() takes ${min} to ${max} arguments`);
    }
    return { type: "call", name, args };
  };

  const tree = level(0);
  if (at < tokens.length) throw new FormulaSyntaxError("unexpected text after the formula");
  return tree;
}

/** Every field a formula names, for Airtable's "Unknown field names" check. */
export function fieldsOf(node: FormulaNode): string[] {
  switch (node.type) {
    case "field":
      return [node.name];
    case "call":
      return node.args.flatMap(fieldsOf);
    case "unary":
      return fieldsOf(node.operand);
    case "binary":
      return [...fieldsOf(node.left), ...fieldsOf(node.right)];
    default:
      return [];
  }
}
