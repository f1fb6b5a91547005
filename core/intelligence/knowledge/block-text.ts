/**
 * Text as a reader sees it: runs of whitespace collapsed to one space, no space added between
 * inline elements where the source has none ("Mon<b>day</b>"), one kept where it has one, and
 * blocks on lines of their own.
 */

/** One line's text, joined from the pieces of inline text it is given. */
export class InlineText {
  #text = "";
  #space = false;

  /** Adds text as written: its whitespace becomes at most one space between words. */
  add(raw: string): void {
    const collapsed = raw.replace(/\s+/g, " ");
    if (collapsed === "") return;
    if (collapsed === " ") {
      this.#space = true;
      return;
    }
    const text = collapsed.trim();
    if (this.#text !== "" && (this.#space || collapsed.startsWith(" "))) this.#text += " ";
    this.#text += text;
    this.#space = collapsed.endsWith(" ");
  }

  /** A break between words that the source marks by other means than a space (a cell, a block). */
  space(): void {
    this.#space = true;
  }

  get text(): string {
    return this.#text;
  }

  /** The text so far, and a fresh start. */
  take(): string {
    const text = this.#text;
    this.#text = "";
    this.#space = false;
    return text;
  }
}

/** Lines of text, each a block's or a part of one between `<br>`s; empty lines are not kept. */
export class LineWriter {
  readonly lines: string[] = [];
  readonly #line = new InlineText();
  /** Written before the next line's text (`- ` for a list item), once it has some. */
  #prefix = "";

  add(raw: string): void {
    this.#line.add(raw);
  }

  /** Ends the line under way, if it has text. */
  endLine(): void {
    const text = this.#line.take();
    if (text === "") return;
    this.lines.push(this.#prefix + text);
    this.#prefix = "";
  }

  /** Starts a line that reads `prefix` before its text (kept until a line has text or `clearPrefix`). */
  startLine(prefix: string): void {
    this.endLine();
    this.#prefix = prefix;
  }

  clearPrefix(): void {
    this.#prefix = "";
  }

  /** Writes a whole line, such as a table's row. */
  writeLine(text: string): void {
    this.endLine();
    if (text !== "") this.lines.push(this.#prefix + text);
    this.#prefix = "";
  }

  /** The lines written, the one under way ended; and a fresh start. */
  take(): string[] {
    this.endLine();
    this.#prefix = "";
    return this.lines.splice(0);
  }
}
