/**
 * The demo's example websites (SITEVOICE_DEMO): the pages in `examples/websites/<site_id>/`,
 * served as `/demo/<site_id>` (its `index.html`) and `/demo/<site_id>/<page>` (`<page>.html`, or
 * an asset such as `site.css`), with a `robots.txt` and a sitemap at this service's root that list
 * them. An example site whose domain is this service's own address (the example restaurant's is
 * `localhost:8787`) is then crawled like a real website on a bare `npm start`, so its assistant
 * knows what the pages say. A site without an example website keeps the plain demo page
 * (widget-script-routes.ts).
 *
 * Files only: no listing, no dotfiles, no redirects; express's static files answer ETag and
 * Last-Modified, so a re-crawl asks conditionally and gets 304 for an unchanged page.
 */
import express, { Router } from "express";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const EXAMPLE_SITES_DIR = fileURLToPath(
  new URL("../../examples/websites/", import.meta.url),
);

/** Paths the crawler has no business in, whatever site is crawled from this address. */
const DISALLOWED = ["/v1/", "/dashboard", "/example-api/", "/widget.js"];

export function exampleSiteRoutes(dir: string = EXAMPLE_SITES_DIR): Router {
  const router = Router();
  const websites = exampleWebsites(dir);

  router.get("/robots.txt", (req, res) => {
    res
      .type("text/plain")
      .send(
        ["User-agent: *", ...DISALLOWED.map((p) => `Disallow: ${p}`), ""].join("\n") +
          `Sitemap: ${originOf(req)}/demo/sitemap.xml\n`,
      );
  });

  router.get("/demo/sitemap.xml", (req, res) => {
    const origin = originOf(req);
    const urls = Object.entries(websites).flatMap(([siteId, pages]) =>
      pages.map((page) => `${origin}/demo/${siteId}${page === "index" ? "" : `/${page}`}`),
    );
    res
      .type("application/xml")
      .send(
        `<?xml version="1.0" encoding="UTF-8"?>\n` +
          `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
          urls.map((url) => `  <url><loc>${url}</loc></url>\n`).join("") +
          `</urlset>\n`,
      );
  });

  const files = express.static(dir, {
    index: false,
    dotfiles: "deny",
    redirect: false,
    extensions: ["html"],
  });
  // `/demo/<site_id>` is the website's home page; a site without a website falls through to the
  // plain demo page.
  router.get("/demo/:siteId", (req, res, next) => {
    const siteId = req.params.siteId;
    if (websites[siteId] === undefined) {
      next();
      return;
    }
    req.url = `/${siteId}/index.html`;
    files(req, res, next);
  });
  router.use("/demo", (req, res, next) => {
    const siteId = req.path.split("/")[1] ?? "";
    if (websites[siteId] === undefined || (req.method !== "GET" && req.method !== "HEAD")) {
      next();
      return;
    }
    files(req, res, next);
  });
  return router;
}

/** The example websites found in `dir`: site id → its pages (file names without `.html`). */
function exampleWebsites(dir: string): Record<string, string[]> {
  const websites: Record<string, string[]> = {};
  for (const siteId of readdirSync(dir).sort()) {
    const folder = path.join(dir, siteId);
    if (!statSync(folder).isDirectory()) continue;
    const pages = readdirSync(folder)
      .filter((name) => name.endsWith(".html"))
      .map((name) => name.slice(0, -".html".length))
      .sort((a, b) => (a === "index" ? -1 : b === "index" ? 1 : a.localeCompare(b)));
    if (pages.includes("index")) websites[siteId] = pages;
  }
  return websites;
}

function originOf(req: express.Request): string {
  return `${req.protocol}://${req.get("host") ?? "localhost"}`;
}
