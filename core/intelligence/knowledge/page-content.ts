/**
 * What the crawl keeps of an HTML page: its title, its language and its main content as sections
 * at its headings. Built on htmlparser2 rather than a readability port: readability keeps one
 * article body and drops what does not look like one (contact details, an opening-hours table,
 * blocks named "contact" or "widget"), renames headings that repeat the title, and needs a whole
 * DOM; here the rules say what is boilerplate and everything else is kept (see content-filter.ts).
 */
import { mainContent } from "./content-filter.ts";
import { descendants, parseHtml, type HtmlElement } from "./html-tree.ts";
import type { PageContent } from "./knowledge-types.ts";
import { writeSections } from "./section-writer.ts";

/** The content of the page at `url` (as the crawler gives it) whose HTML is `html`. */
export function extractContent(html: string, url: string): PageContent {
  const root = parseHtml(html);
  return {
    url,
    title: titleOf(root),
    language: languageOf(root),
    sections: writeSections(mainContent(root)),
  };
}

/** The first `<title>` outside SVG and MathML (whose own titles name pictures), collapsed. */
function titleOf(root: HtmlElement): string | null {
  const foreign = (element: HtmlElement) => element.name === "svg" || element.name === "math";
  for (const element of descendants(root, foreign)) {
    if (element.name !== "title") continue;
    const text = element.children
      .filter((child) => typeof child === "string")
      .join("")
      .replace(/\s+/g, " ")
      .trim();
    return text === "" ? null : text;
  }
  return null;
}

/** `<html lang>`'s primary subtag in lower case, when it is a language's (two or three letters). */
function languageOf(root: HtmlElement): string | null {
  const html = root.children.find(
    (child): child is HtmlElement => typeof child !== "string" && child.name === "html",
  );
  const primary = html?.attributes["lang"]?.trim().split(/[-_]/)[0]?.toLowerCase() ?? "";
  return /^[a-z]{2,3}$/.test(primary) ? primary : null;
}
