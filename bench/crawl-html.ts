/**
 * The crawl benchmark's generated site (crawl.ts): N pages of HTML of a few KB each, its
 * robots.txt and its sitemaps. Pure functions of the page count (and of the origin, for what
 * names absolute URLs), so the server (crawl-site.ts) and the harness agree on every path
 * without sharing state.
 *
 * Shape: page 0 is `/`; every SECTION_SIZE-th page is a section hub (`/guides/section-<s>/`), the
 * others topics of their section. Every page's nav links `/` and every hub, and a hub links every
 * page of its section (`/` is the hub of section 0), so the links reach all N pages two levels
 * from `/` (the crawler follows 5). Every page also links the next RELATED pages, its own
 * headings (`#id`, which the crawler's URL normal form drops), `/` with a tracking parameter (the
 * same page again) and another site (never fetched). Each page has a title, a meta description
 * and headings with ids, some of them on an anchor inside the heading.
 */

/** Pages per section: each hub links this many. */
export const SECTION_SIZE = 50;
/** Pages per gzipped sitemap; the sitemap index lists them all. */
const SITEMAP_SIZE = 100;
/** The pages after each page that it links as related. */
const RELATED = 10;
/** h2 sections per page, each with two paragraphs and an h3. */
const PARTS = 4;

const WORDS = (
  "booking table menu season kitchen garden wine tasting dessert bread oven lunch dinner " +
  "terrace private dining group allergen gluten vegan delivery voucher gift card opening " +
  "hours parking access family children chef recipe market local farm cheese coffee tea " +
  "breakfast brunch event music evening reservation policy cancellation deposit payment"
).split(" ");

/** The path of page `i`. */
export function pagePath(i: number): string {
  const section = Math.floor(i / SECTION_SIZE);
  if (i === 0) return "/";
  if (i % SECTION_SIZE === 0) return `/guides/section-${section}/`;
  return `/guides/section-${section}/topic-${i}`;
}

/** The paths of all `n` pages, in page order (the sitemaps' order). */
export function pagePaths(n: number): string[] {
  return Array.from({ length: n }, (_, i) => pagePath(i));
}

/** `count` words chosen from `seed`, the same on every run. */
function words(seed: number, count: number): string {
  // xorshift32, seeded by a multiplicative hash (never 0, where it would stay).
  let state = Math.imul(seed + 1, 0x9e3779b1) >>> 0 || 1;
  const chosen: string[] = [];
  for (let k = 0; k < count; k++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    chosen.push(WORDS[state % WORDS.length]!);
  }
  return chosen.join(" ");
}

const link = (href: string, text: string) => `<a href="${href}">${text}</a>`;

function nav(n: number): string {
  const hubs = [];
  for (let i = SECTION_SIZE; i < n; i += SECTION_SIZE) {
    hubs.push(`<li>${link(pagePath(i), `Section ${i / SECTION_SIZE}`)}</li>`);
  }
  return `<nav class="site-nav"><ul><li>${link("/", "Home")}</li>${hubs.join("")}</ul></nav>`;
}

/** The pages `i` links besides the nav: its section's when it is a hub, the next few. */
function listed(i: number, n: number): string {
  const targets: number[] = [];
  if (i % SECTION_SIZE === 0) {
    for (let j = i + 1; j < Math.min(n, i + SECTION_SIZE); j++) targets.push(j);
  }
  for (let k = 1; k <= RELATED; k++) targets.push((i + k) % n);
  const items = targets.map((j) => `<li>${link(pagePath(j), `Topic ${j}: ${words(j, 3)}`)}</li>`);
  return `<aside><h2 id="related">Related</h2><ul>${items.join("")}</ul></aside>`;
}

function part(i: number, k: number): string {
  const id = `part-${k}`;
  // Every other section's id sits on an anchor inside its heading, as many CMSs write it.
  const heading =
    k % 2 === 0
      ? `<h2 id="${id}">${words(i + k, 3)}</h2>`
      : `<h2><a id="${id}" href="#${id}">${words(i + k, 3)}</a></h2>`;
  return [
    `<section>${heading}`,
    `<p>${words(i * 7 + k, 60)}.</p>`,
    `<h3 id="${id}-details">Details</h3>`,
    `<p>${words(i * 11 + k, 50)}. ${link("#top", "Back to top")}</p>`,
    `</section>`,
  ].join("\n");
}

/** Page `i` of a site of `n` pages. */
export function pageHtml(i: number, n: number): string {
  const title = `Topic ${i}: ${words(i, 4)} | Trattoria Guide`;
  const toc = Array.from(
    { length: PARTS },
    (_, k) => `<li>${link(`#part-${k}`, `Part ${k}`)}</li>`,
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<meta name="description" content="${words(i + 1, 18)}.">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/assets/site.css">
</head>
<body>
<header>${nav(n)}</header>
<main>
<h1 id="top">${title}</h1>
<ol class="toc">${toc.join("")}</ol>
${Array.from({ length: PARTS }, (_, k) => part(i, k)).join("\n")}
${listed(i, n)}
</main>
<footer>${link("/?utm_source=footer", "Home")} ${link("https://example.org/partners", "Partners")}</footer>
</body>
</html>
`;
}

/** robots.txt: with the sitemap index named, or (the links-only site) without. */
export function robotsTxt(origin: string, withSitemap: boolean): string {
  const lines = ["User-agent: *", "Disallow: /admin/", ""];
  if (withSitemap) lines.push(`Sitemap: ${origin}/sitemap-index.xml`, "");
  return lines.join("\n");
}

/** The paths of the gzipped sitemaps of a site of `n` pages. */
export function sitemapPaths(n: number): string[] {
  const count = Math.ceil(n / SITEMAP_SIZE);
  return Array.from({ length: count }, (_, k) => `/sitemaps/pages-${k + 1}.xml.gz`);
}

/** The sitemap index listing every sitemap. */
export function sitemapIndexXml(origin: string, n: number): string {
  const entries = sitemapPaths(n).map((p) => `  <sitemap><loc>${origin}${p}</loc></sitemap>`);
  return `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${entries.join("\n")}
</sitemapindex>
`;
}

/** Sitemap `k` (0-based, unzipped): its SITEMAP_SIZE pages. */
export function sitemapXml(origin: string, n: number, k: number): string {
  const paths = pagePaths(n).slice(k * SITEMAP_SIZE, (k + 1) * SITEMAP_SIZE);
  const entries = paths.map(
    (p) => `  <url><loc>${origin}${p}</loc><lastmod>2026-11-01</lastmod></url>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${entries.join("\n")}
</urlset>
`;
}
