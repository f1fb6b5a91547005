/**
 * `GET /widget.js`: the widget, the same file for every site (docs/widget.md, "Embed the widget"). No
 * auth, `Access-Control-Allow-Origin: *` and `Cross-Origin-Resource-Policy: cross-origin` (any
 * site may load it, also with `crossorigin` for Subresource Integrity), a strong ETag from its
 * content with 304 answers, five minutes of freshness and a day of stale-while-revalidate, and
 * brotli or gzip when the browser takes them.
 *
 * `GET /demo/:siteId` (only with SITEVOICE_DEMO on): a page that embeds the widget for a site,
 * which works when the site lists this service's own host among its domains and lets its pages
 * include `/demo/*` (the example restaurant does both for localhost:8787), and otherwise says
 * what to add.
 */
import { Router } from "express";
import Handlebars from "handlebars";
import type { SiteService } from "../sites/site-service.ts";
import { pagePatternTest } from "../sites/page-patterns.ts";
import { allowedOrigins } from "../widget/origin.ts";
import { widgetBundle } from "../widget/widget-bundle.ts";

export const WIDGET_PATH = "/widget.js";

const CACHE_CONTROL = "public, max-age=300, stale-while-revalidate=86400";

export function widgetScriptRoutes(parts: { sites: SiteService; demo: boolean }): Router {
  const router = Router();

  router.get(WIDGET_PATH, async (req, res) => {
    const bundle = await widgetBundle();
    res.setHeader("Content-Type", "text/javascript; charset=utf-8");
    res.setHeader("Cache-Control", CACHE_CONTROL);
    res.setHeader("ETag", bundle.etag);
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Cross-Origin-Resource-Policy", "cross-origin");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.vary("Accept-Encoding");
    if (matches(req.headers["if-none-match"], bundle.etag)) {
      res.status(304).end();
      return;
    }
    // Brotli when taken (smaller), whatever order the browser lists them in.
    const encoding =
      req.acceptsEncodings("br") === "br" ? "br" : req.acceptsEncodings("gzip", "identity");
    const body =
      encoding === "br" ? bundle.brotli : encoding === "gzip" ? bundle.gzip : bundle.code;
    if (encoding === "br" || encoding === "gzip") res.setHeader("Content-Encoding", encoding);
    res.setHeader("Content-Length", body.length);
    res.end(req.method === "HEAD" ? undefined : body);
  });

  if (parts.demo) {
    router.get("/demo/:siteId", async (req, res) => {
      const found = await parts.sites.publicSite(req.params.siteId as string);
      res.setHeader("Cache-Control", "no-store");
      if (found === undefined) {
        res
          .status(404)
          .type("html")
          .send(demoPage({ missing: req.params.siteId }));
        return;
      }
      const origin = `${req.protocol}://${req.get("host") ?? ""}`.toLowerCase();
      const { site } = found;
      res.type("html").send(
        demoPage({
          site,
          host: req.get("host"),
          allowed: allowedOrigins(site).has(origin),
          shown: pagePatternTest(site)(req.path),
          path: req.path,
          widget: `${origin}${WIDGET_PATH}`,
        }),
      );
    });
  }
  return router;
}

/** Whether If-None-Match names this ETag (or is `*`); weak comparison, as RFC 9110 says. */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .some((tag) => tag === etag || tag === "*");
}

const demoPage = Handlebars.compile(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{{#if site}}{{site.business_name}}: Sitevoice demo{{else}}Sitevoice demo{{/if}}</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 3rem auto; padding: 0 1rem;
  color: #1f2937; }
code { background: #f3f4f6; padding: 0.1rem 0.3rem; border-radius: 4px; }
pre { white-space: pre-wrap; word-break: break-all; }
.note { border-left: 4px solid #f59e0b; padding: 0.5rem 1rem; background: #fffbeb; }
</style></head>
<body>
{{#if missing}}
<h1>No site "{{missing}}"</h1>
<p>There is no site with this id. The example sites are loaded from <code>sites/</code> on first
start; try <a href="/demo/luigis-trattoria">/demo/luigis-trattoria</a>.</p>
{{else}}
<h1>{{site.business_name}}</h1>
<p>{{site.business_description}}</p>
<p>This page embeds the Sitevoice widget as a business's website would. Press the button in the
corner, accept the notice, allow the microphone and talk: ask what is on the menu, or leave your
contact details.</p>
{{#unless allowed}}
<p class="note">The widget stays hidden here: <code>{{host}}</code> is not among this site's
domains. Add it to the site's <code>additional_domains</code> (as the example restaurant in
<code>sites/luigis-trattoria.yaml</code> does for <code>localhost:8787</code>) and reload.</p>
{{/unless}}
{{#unless shown}}
<p class="note">The widget stays hidden on this page: the site's <code>enabled_pages</code> and
<code>disabled_pages</code> leave out <code>{{path}}</code>. Add <code>/demo/*</code> to its
<code>enabled_pages</code> (as the example restaurant does) and reload.</p>
{{/unless}}
<h2 id="embed">The script tag</h2>
<pre><code>&lt;script src="{{widget}}" data-site-id="{{site.site_id}}" async&gt;&lt;/script&gt;</code></pre>
<script src="{{widget}}" data-site-id="{{site.site_id}}" async></script>
{{/if}}
</body>
</html>
`);
