/**
 * The crawl benchmark's site (forked by crawl.ts, `node --import tsx bench/crawl-site.ts`), and
 * the knowledge benchmark's (knowledge.ts), in a process of its own so that serving it costs the
 * crawling process nothing: two `node:http` servers on 127.0.0.1 over the same N generated pages
 * (the crawl benchmark's from crawl-html.ts, the knowledge benchmark's from knowledge-html.ts, on
 * the same paths), each page made once before listening and answered from memory. The `sitemap`
 * server's robots.txt names a sitemap index of gzipped sitemaps; the `links` server's names none
 * and it has no sitemap at all (404), so a crawl of it follows links from `/`. Two servers, not a
 * path switch: robots.txt and `/sitemap.xml` are at the root of an origin. No Crawl-delay, no
 * compression of pages.
 *
 * IPC: the harness sends a CrawlSiteTask; this answers `{sitemapPort, linksPort}` once both
 * listen, and exits when the harness disconnects.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import {
  pageHtml,
  pagePaths,
  robotsTxt,
  sitemapIndexXml,
  sitemapPaths,
  sitemapXml,
} from "./crawl-html.ts";
import { knowledgePageHtml } from "./knowledge-html.ts";

export interface CrawlSiteTask {
  pages: number;
  /** Whose pages: the crawl benchmark's (the default) or the knowledge benchmark's. */
  content?: "crawl" | "knowledge";
}

export interface CrawlSitePorts {
  sitemapPort: number;
  linksPort: number;
}

type Answer = [type: string, body: Buffer];

const HTML = "text/html; charset=utf-8";
const NOT_FOUND = Buffer.from("<!doctype html><title>Not found</title><h1>Not found</h1>");

/** Every page of a site of `n` pages, by path. */
function pageAnswers(n: number, content: CrawlSiteTask["content"]): Map<string, Answer> {
  const html = content === "knowledge" ? knowledgePageHtml : pageHtml;
  const answers = new Map<string, Answer>();
  pagePaths(n).forEach((p, i) => answers.set(p, [HTML, Buffer.from(html(i, n))]));
  return answers;
}

/** What one server answers besides the pages: robots.txt and, with `withSitemap`, the sitemaps. */
function rootAnswers(origin: string, n: number, withSitemap: boolean): Map<string, Answer> {
  const answers = new Map<string, Answer>([
    ["/robots.txt", ["text/plain", Buffer.from(robotsTxt(origin, withSitemap))]],
  ]);
  if (!withSitemap) return answers;
  answers.set("/sitemap-index.xml", ["application/xml", Buffer.from(sitemapIndexXml(origin, n))]);
  sitemapPaths(n).forEach((p, k) =>
    answers.set(p, ["application/gzip", gzipSync(sitemapXml(origin, n, k))]),
  );
  return answers;
}

/** Listens on 127.0.0.1, any port; answers from `pages`, then from the root answers set later. */
async function listen(pages: Map<string, Answer>) {
  let roots = new Map<string, Answer>();
  const server = http.createServer((req, res) => {
    const pathname = (req.url ?? "/").split("?")[0]!;
    const answer = pages.get(pathname) ?? roots.get(pathname);
    const [type, body] = answer ?? [HTML, NOT_FOUND];
    res.writeHead(answer === undefined ? 404 : 200, {
      "content-type": type,
      "content-length": body.length,
    });
    res.end(body);
  });
  // Longer than any pause between sides, so no kept-alive connection closes under a client.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { port, setRoots: (answers: Map<string, Answer>) => void (roots = answers) };
}

process.once("message", ({ pages: n, content }: CrawlSiteTask) => {
  void (async () => {
    const pages = pageAnswers(n, content);
    const sitemap = await listen(pages);
    const links = await listen(pages);
    sitemap.setRoots(rootAnswers(`http://127.0.0.1:${sitemap.port}`, n, true));
    links.setRoots(rootAnswers(`http://127.0.0.1:${links.port}`, n, false));
    process.send?.({ sitemapPort: sitemap.port, linksPort: links.port } satisfies CrawlSitePorts);
  })();
});
process.on("disconnect", () => process.exit(0));
