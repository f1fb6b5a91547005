/**
 * The knowledge benchmark's site (knowledge.ts): page `i` of N as HTML, on the crawl
 * benchmark's paths and sitemaps (crawl-html.ts, served by crawl-site.ts), its words those of
 * the index benchmark's generated pages (knowledge-passages.ts: English-like text, a Zipf law
 * over 24,000 made-up words), so both measure the same kind of site.
 *
 * A page is laid out as a CMS would: a header with the site's navigation, a cookie banner, then
 * `<main>` with the page's h1 and its PASSAGES_PER_PAGE sections (each as paragraphs, or as a
 * list; every third an h3 under the h2 before it; its id on the heading, on an anchor inside it
 * or on the `<section>` around it), an aside of related pages and a footer. The crawl keeps the
 * sections (one passage each: the texts stay under 800 characters) and leaves the rest out.
 */
import { pagePath, SECTION_SIZE } from "./crawl-html.ts";
import { benchPage } from "./knowledge-passages.ts";

/** The pages after each page that its aside links. */
const RELATED = 5;

const link = (href: string, text: string) => `<a href="${href}">${text}</a>`;

/** A heading's id as a CMS makes it: its words in lower case, joined by hyphens. */
const slug = (heading: string) => heading.toLowerCase().replace(/[^a-z0-9]+/g, "-");

const sentences = (text: string) => text.split(/(?<=\.) /);

/** The section's text as two paragraphs, or (every fourth section) as a list of its sentences. */
function body(text: string, i: number, k: number): string {
  const parts = sentences(text);
  if ((i + k) % 4 === 3) return `<ul>${parts.map((s) => `<li>${s}</li>`).join("")}</ul>`;
  const half = Math.ceil(parts.length / 2);
  return `<p>${parts.slice(0, half).join(" ")}</p>\n<p>${parts.slice(half).join(" ")}</p>`;
}

/** Section `k` of page `i`, with the id `id` where a CMS would put it. */
function section(heading: string, text: string, id: string, i: number, k: number): string {
  const level = k % 3 === 2 ? "h3" : "h2";
  switch ((i + k) % 3) {
    case 0:
      return `<${level} id="${id}">${heading}</${level}>\n${body(text, i, k)}`;
    case 1:
      return `<${level}><a id="${id}" href="#${id}">${heading}</a></${level}>\n${body(text, i, k)}`;
    default:
      return `<section id="${id}">\n<${level}>${heading}</${level}>\n${body(text, i, k)}\n</section>`;
  }
}

function header(n: number): string {
  const hubs = [];
  for (let i = SECTION_SIZE; i < n; i += SECTION_SIZE) {
    hubs.push(`<li>${link(pagePath(i), `Guides ${i / SECTION_SIZE}`)}</li>`);
  }
  return `<header class="site-header"><nav><ul><li>${link("/", "Home")}</li>${hubs.join("")}</ul></nav></header>
<div class="cookie-banner" role="dialog" aria-label="Cookie consent"><p>We use cookies to remember your booking.</p><button>Accept all cookies</button></div>`;
}

function related(i: number, n: number): string {
  const items = Array.from({ length: RELATED }, (_, k) => {
    const j = (i + k + 1) % n;
    return `<li>${link(pagePath(j), benchPage(j).h1)}</li>`;
  });
  return `<aside><h2>Related pages</h2><ul>${items.join("")}</ul></aside>`;
}

/** Page `i` of a site of `n` pages. */
export function knowledgePageHtml(i: number, n: number): string {
  const page = benchPage(i);
  const used = new Set<string>();
  const sections = page.sections.map(({ heading, text }, k) => {
    let id = slug(heading);
    if (used.has(id)) id = `${id}-${k}`;
    used.add(id);
    return section(heading, text, id, i, k);
  });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${page.title}</title>
<meta name="description" content="${sentences(page.sections[0]!.text)[0]}">
<link rel="stylesheet" href="/assets/site.css">
</head>
<body>
${header(n)}
<main>
<h1>${page.h1}</h1>
${sections.join("\n")}
${related(i, n)}
</main>
<footer>${link("/imprint", "Imprint")} ${link("/privacy", "Privacy")}</footer>
</body>
</html>
`;
}
