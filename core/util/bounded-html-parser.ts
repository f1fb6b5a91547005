/**
 * htmlparser2's Parser with a bound on how many elements are open at once. The Parser keeps its
 * open elements in an array it shifts and unshifts at every tag, so a document nested n deep
 * costs time in n² (100,000 nested `<div>`s: about 10 s of one core), which a crawled page must
 * not be able to ask for. Past the bound an element is treated as void: opened and closed at
 * once, its text going to its parent, so the text is kept and only the structure below the
 * bound is lost.
 */
import { Parser, type Handler, type ParserOptions } from "htmlparser2";

/** How many elements may be open at once: far deeper than any real page nests. */
export const MAX_OPEN_ELEMENTS = 256;

/**
 * Elements whose content the tokenizer reads as raw text: kept elements even past the bound, so
 * that a script's code is never taken for text (they cannot nest, so the bound grows by one).
 */
const RAW_TEXT = new Set([
  "script",
  "style",
  "textarea",
  "title",
  "xmp",
  "iframe",
  "noembed",
  "noframes",
  "plaintext",
]);

export class BoundedParser extends Parser {
  readonly #open: readonly unknown[];
  /** Whether the tag being opened is flattened: decided once, after the closes it implies. */
  #flatten: boolean | undefined;
  #closing = false;

  constructor(
    handler: Partial<Handler>,
    options: ParserOptions = {},
    private readonly maxDepth = MAX_OPEN_ELEMENTS,
  ) {
    super(handler, options);
    // The Parser's own stack of open elements (private in its types, a plain field at run time).
    const open = (this as unknown as { stack?: unknown }).stack;
    if (!Array.isArray(open)) throw new Error("htmlparser2's Parser keeps no `stack` array");
    this.#open = open;
  }

  protected override isVoidElement(name: string): boolean {
    if (super.isVoidElement(name)) return true;
    // An end tag is looked up as written; only an opening is refused past the bound.
    if (this.#closing || name === "") return false;
    this.#flatten ??= this.#open.length >= this.maxDepth && !RAW_TEXT.has(name);
    return this.#flatten;
  }

  override onopentagname(start: number, endIndex: number): void {
    this.#flatten = undefined;
    super.onopentagname(start, endIndex);
  }

  override onclosetag(start: number, endIndex: number): void {
    this.#closing = true;
    try {
      super.onclosetag(start, endIndex);
    } finally {
      this.#closing = false;
    }
  }
}
