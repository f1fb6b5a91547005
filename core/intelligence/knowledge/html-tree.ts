/**
 * A page's HTML as a light tree of elements and text, built with htmlparser2's parser bounded in
 * depth (see BoundedParser): the content extractor needs to look at an element's ancestors and
 * descendants (is this aside mostly links? which id encloses this heading?), which a stream
 * alone does not give, but needs nothing of a DOM's weight.
 */
import { BoundedParser } from "../../util/bounded-html-parser.ts";

export interface HtmlElement {
  /** The tag name in lower case; `#document` for the tree's root. */
  name: string;
  /** Names in lower case, values with entities decoded. */
  attributes: Record<string, string>;
  children: HtmlNode[];
  /** Undefined for the root. */
  parent: HtmlElement | undefined;
}

/** An element, or a run of text with its entities decoded. */
export type HtmlNode = HtmlElement | string;

/** The tree of `html`; the root holds what the page's top level holds. */
export function parseHtml(html: string): HtmlElement {
  const root: HtmlElement = { name: "#document", attributes: {}, children: [], parent: undefined };
  let current = root;
  const parser = new BoundedParser(
    {
      onopentag(name, attributes) {
        const element: HtmlElement = { name, attributes, children: [], parent: current };
        current.children.push(element);
        current = element;
      },
      ontext(text) {
        const last = current.children.length - 1;
        // The parser hands text in pieces (around entities, across buffers): one node per run.
        if (typeof current.children[last] === "string") current.children[last] += text;
        else current.children.push(text);
      },
      onclosetag() {
        current = current.parent ?? root;
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return root;
}

/** The element's descendants in document order, `skip` ones left out with theirs. */
export function* descendants(
  element: HtmlElement,
  skip: (element: HtmlElement) => boolean = () => false,
): Generator<HtmlElement> {
  // A stack rather than nested generators, each of which would pass on every element below it.
  const pending: HtmlNode[] = [...element.children].reverse();
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (typeof node === "string" || skip(node)) continue;
    yield node;
    for (let index = node.children.length - 1; index >= 0; index--)
      pending.push(node.children[index]!);
  }
}
