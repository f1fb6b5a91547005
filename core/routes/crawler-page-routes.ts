/**
 * `GET /crawler`: the page the crawler's user agent points site owners to (the default contact
 * URL), saying what the crawler reads, how often, and how to keep it out. Plain HTML, no script,
 * the same for everyone.
 */
import { Router } from "express";
import { CRAWLER_PRODUCT } from "../intelligence/crawler/user-agent.ts";
import { packageVersion } from "../util/package-version.ts";

export const CRAWLER_PAGE_PATH = "/crawler";

function page(): string {
  const agent = `${CRAWLER_PRODUCT}/${packageVersion()}`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${CRAWLER_PRODUCT}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<h1>${CRAWLER_PRODUCT}</h1>
<p>${agent} reads the public pages of a website whose owner added a Sitevoice voice assistant to
it, so that the assistant knows the site's pages: their titles, descriptions, headings and the
text of their main content, which it answers visitors' questions from. It reads nothing else and
sends no forms.</p>
<p>It crawls a site when the assistant is set up, when the owner asks for a refresh, and once a
night. It follows robots.txt (rules for <code>${CRAWLER_PRODUCT}</code> or <code>*</code>) and its
<code>Crawl-delay</code>, asks for a page again only if it changed (<code>If-None-Match</code>,
<code>If-Modified-Since</code>), makes at most three requests at a time, and reads at most a few hundred
pages.</p>
<p>To keep it out of your whole site, add to robots.txt:</p>
<pre>User-agent: ${CRAWLER_PRODUCT}
Disallow: /</pre>
<p>To keep one page out of what the assistant knows, mark it as search engines read it:
<code>&lt;meta name="robots" content="noindex"&gt;</code> (or a meta named
<code>${CRAWLER_PRODUCT.toLowerCase()}</code> for this crawler alone), or an
<code>X-Robots-Tag: noindex</code> header. Its links are still followed unless it also says
<code>nofollow</code>.</p>
</body>
</html>
`;
}

export function crawlerPageRoutes(): Router {
  const router = Router();
  router.get(CRAWLER_PAGE_PATH, (_req, res) => {
    res.setHeader("Cache-Control", "public, max-age=3600");
    res.type("html").send(page());
  });
  return router;
}
