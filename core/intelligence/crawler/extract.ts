/**
 * What the crawler reads out of a document, with htmlparser2's streaming parser (no DOM is
 * built; bounded in depth, so that a page nested absurdly deep costs no more than a flat one): of
 * an HTML page its title, its description and the ids of its sections (what the assistant can
 * point a visitor at: `/menu#desserts`), and the links to follow; of a sitemap the `<loc>` of
 * each entry and whether it is an index of further sitemaps.
 */
import { BoundedParser } from "../../util/bounded-html-parser.ts";

export interface ExtractedPage {
  /** `<title>`, trimmed, whitespace collapsed; null without one (or an empty one). */
  title: string | null;
  /** `<meta name="description">`, else `og:description`; null without either. */
  description: string | null;
  /** The id of each heading h1–h6 and of each element inside one, in document order, once. */
  sectionIds: string[];
  /**
   * Every `<a href>`, resolved against the page's URL and its `<base href>`, in order; none
   * when not asked for (a crawl by sitemap follows no link).
   */
  links: string[];
  /** The `content` of each `<meta>` named as `robotsNames` asks (page-directives.ts reads it). */
  robots: string[];
}

const HEADING = /^h[1-6]$/;

const collapse = (text: string): string | null => {
  const collapsed = text.replace(/\s+/g, " ").trim();
  return collapsed === "" ? null : collapsed;
};

/** The page at `url` (its final URL, after redirects) whose HTML is `html`. */
export function extractPage(
  html: string,
  url: string,
  options: { links: boolean; robotsNames?: readonly string[] } = { links: true },
): ExtractedPage {
  const robotsNames = new Set(options.robotsNames ?? ["robots"]);
  const robots: string[] = [];
  let title: string | undefined;
  let inTitle = false;
  let titleText = "";
  let description: string | undefined;
  let ogDescription: string | undefined;
  let base: string | undefined;
  const hrefs: string[] = [];
  const ids = new Set<string>();
  // Open elements from the innermost heading down; 0 when outside every heading.
  let headingDepth = 0;

  const parser = new BoundedParser(
    {
      onopentag(name, attributes) {
        if (HEADING.test(name) || headingDepth > 0) {
          headingDepth++;
          const id = attributes["id"]?.trim();
          if (id) ids.add(id);
        }
        if (name === "title" && title === undefined) {
          inTitle = true;
        } else if (name === "a" && options.links && attributes["href"] !== undefined) {
          hrefs.push(attributes["href"]);
        } else if (name === "base" && base === undefined && attributes["href"] !== undefined) {
          base = attributes["href"];
        } else if (name === "meta") {
          const key = (attributes["name"] ?? attributes["property"] ?? "").toLowerCase();
          const content = attributes["content"];
          if (content === undefined) return;
          if (key === "description") description ??= content;
          else if (key === "og:description") ogDescription ??= content;
          else if (robotsNames.has(key)) robots.push(content);
        }
      },
      ontext(text) {
        if (inTitle) titleText += text;
      },
      onclosetag(name) {
        if (headingDepth > 0) headingDepth--;
        if (name === "title" && inTitle) {
          inTitle = false;
          title = titleText;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);

  let baseUrl: string = url;
  if (base !== undefined) {
    try {
      baseUrl = new URL(base, url).href;
    } catch {
      // An unusable <base> is ignored, as browsers do.
    }
  }
  const links: string[] = [];
  for (const href of hrefs) {
    try {
      links.push(new URL(href.trim(), baseUrl).href);
    } catch {
      // Not a URL: not a link to follow.
    }
  }
  return {
    title: collapse(title ?? (inTitle ? titleText : "")),
    description: collapse(description ?? ogDescription ?? ""),
    sectionIds: [...ids],
    links,
    robots,
  };
}

export interface ExtractedSitemap {
  /** A `<sitemapindex>` lists sitemaps; a `<urlset>` lists pages. */
  kind: "index" | "urlset" | "other";
  /** Each entry's `<loc>`, trimmed, in order. */
  locs: string[];
}

/** The local part of an XML name (`image:loc` → `loc`), lower-cased. */
const localName = (name: string): string => name.slice(name.indexOf(":") + 1).toLowerCase();

/** A sitemap or sitemap index (sitemaps.org protocol), read in XML mode. */
export function extractSitemap(xml: string): ExtractedSitemap {
  let kind: ExtractedSitemap["kind"] | undefined;
  const locs: string[] = [];
  // The element path, to take only <urlset><url><loc> and <sitemapindex><sitemap><loc>
  // (not image:loc and the like of extensions, which sit deeper).
  const path: string[] = [];
  let loc: string | undefined;
  const parser = new BoundedParser(
    {
      onopentag(name) {
        const local = localName(name);
        if (kind === undefined) {
          kind = local === "sitemapindex" ? "index" : local === "urlset" ? "urlset" : "other";
        }
        path.push(name.toLowerCase());
        if (path.length === 3 && local === "loc" && !name.includes(":")) loc = "";
      },
      ontext(text) {
        if (loc !== undefined) loc += text;
      },
      onclosetag() {
        if (path.length === 3 && loc !== undefined) {
          const trimmed = loc.trim();
          if (trimmed !== "") locs.push(trimmed);
          loc = undefined;
        }
        path.pop();
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(xml);
  return { kind: kind ?? "other", locs };
}
