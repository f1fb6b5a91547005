/**
 * A page's main content as sections: the text from one heading (h1–h6) to the next, with the
 * path of headings it sits under and the id a visitor's page can scroll to for it.
 */
import { InlineText, LineWriter } from "./block-text.ts";
import { isBoilerplate } from "./content-filter.ts";
import { descendants, type HtmlElement } from "./html-tree.ts";
import type { PageSection } from "./knowledge-types.ts";

/** Elements that stand on lines of their own (HTML's block-level elements, as CSS shows them). */
const BLOCKS = new Set(
  "address article aside blockquote body caption center dd details dialog dir div dl dt fieldset figcaption figure footer form header hgroup hr html legend li main menu nav ol p pre search section summary table tbody td tfoot th thead tr ul".split(
    " ",
  ),
);

const HEADING = /^h([1-6])$/;

const LISTS = new Set(["ul", "ol", "menu", "dir"]);

/** The sections of `content`'s text, in document order; those without text left out. */
export function writeSections(content: HtmlElement): PageSection[] {
  const writer = new SectionWriter();
  writer.children(content, false);
  writer.finish();
  return writer.sections;
}

class SectionWriter {
  readonly sections: PageSection[] = [];
  readonly #lines = new LineWriter();
  /** The headings the current section sits under, outermost first. */
  #path: { level: number; text: string }[] = [];
  #sectionId: string | null = null;
  /** How many lists the walk is in: a nested list's items are indented by two spaces a level. */
  #lists = 0;

  children(element: HtmlElement, pre: boolean): void {
    for (const child of element.children) {
      if (typeof child === "string") this.#text(child, pre);
      else if (!isBoilerplate(child)) this.#element(child, pre);
    }
  }

  /** Closes the section under way. */
  finish(): void {
    const text = this.#lines.take().join("\n");
    if (text === "") return;
    this.sections.push({
      headings: this.#path.map((heading) => heading.text),
      sectionId: this.#sectionId,
      text,
    });
  }

  #text(text: string, pre: boolean): void {
    if (!pre) return this.#lines.add(text);
    const lines = text.split("\n");
    lines.forEach((line, index) => {
      if (index > 0) this.#lines.endLine();
      this.#lines.add(line);
    });
  }

  #element(element: HtmlElement, pre: boolean): void {
    const { name } = element;
    const heading = HEADING.exec(name);
    if (heading !== null) return this.#heading(element, Number(heading[1]));
    if (name === "br") return this.#lines.endLine();
    if (name === "table") return this.#table(element);
    if (name === "li") this.#lines.startLine(`${"  ".repeat(Math.max(0, this.#lists - 1))}- `);
    const list = LISTS.has(name);
    if (list) this.#lists++;
    const block = BLOCKS.has(name);
    if (block) this.#lines.endLine();
    this.children(element, pre || name === "pre");
    if (block) this.#lines.endLine();
    if (list) this.#lists--;
    if (name === "li") this.#lines.clearPrefix();
  }

  #heading(element: HtmlElement, level: number): void {
    const text = inlineText(element);
    // A heading without text (an image's) starts nothing: what follows goes on as before.
    if (text === "") return;
    this.finish();
    while (this.#path.length > 0 && this.#path[this.#path.length - 1]!.level >= level) {
      this.#path.pop();
    }
    this.#path.push({ level, text });
    this.#sectionId = sectionIdOf(element);
  }

  /** A table's caption and rows, each on a line: a row's cells with text joined by ` | `. */
  #table(element: HtmlElement): void {
    for (const child of element.children) {
      if (typeof child === "string" || isBoilerplate(child)) continue;
      if (child.name === "caption") this.#lines.writeLine(inlineText(child));
      else if (child.name === "tr") this.#lines.writeLine(rowText(child));
      else if (child.name === "thead" || child.name === "tbody" || child.name === "tfoot") {
        this.#table(child);
      }
    }
  }
}

function rowText(row: HtmlElement): string {
  const cells: string[] = [];
  for (const cell of row.children) {
    if (typeof cell === "string" || isBoilerplate(cell)) continue;
    const text = inlineText(cell);
    if (text !== "") cells.push(text);
  }
  return cells.join(" | ");
}

/** An element's text on one line: its blocks and line breaks as spaces (a heading's, a cell's). */
function inlineText(element: HtmlElement): string {
  const text = new InlineText();
  const walk = (parent: HtmlElement) => {
    for (const child of parent.children) {
      if (typeof child === "string") text.add(child);
      else if (!isBoilerplate(child)) {
        const apart = child.name === "br" || BLOCKS.has(child.name) || HEADING.test(child.name);
        if (apart) text.space();
        walk(child);
        if (apart) text.space();
      }
    }
  };
  walk(element);
  return text.text;
}

/** The heading's id, else that of an element inside it, else that of the nearest around it. */
function sectionIdOf(heading: HtmlElement): string | null {
  const own = idOf(heading);
  if (own !== undefined) return own;
  for (const inner of descendants(heading)) {
    const id = idOf(inner);
    if (id !== undefined) return id;
  }
  for (let up = heading.parent; up !== undefined; up = up.parent) {
    const id = idOf(up);
    if (id !== undefined) return id;
  }
  return null;
}

const idOf = (element: HtmlElement): string | undefined => {
  const id = element.attributes["id"]?.trim();
  return id === "" ? undefined : id;
};
