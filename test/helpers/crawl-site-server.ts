/**
 * The crawler's fixture site, served for real by node:http from test/fixtures/crawl-site/: the
 * pages as files, and what depends on the port (robots.txt naming the sitemap index, the index,
 * the gzipped sitemap) written at serve time. Records every request's path and user agent.
 */
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const FOLDER = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/crawl-site");

/** The pages the sitemap lists, in its order (the order the links of `/` find them in too). */
export const SITEMAP_PATHS = [
  "/",
  "/about",
  "/menu",
  "/private/staff",
  "/loop-a",
  "/missing",
  "/brochure.pdf",
  "/events",
  "/team",
];

const FILES: Record<string, [file: string, type: string]> = {
  "/": ["index.html", "text/html; charset=utf-8"],
  "/about": ["about.html", "text/html; charset=utf-8"],
  "/team": ["team.html", "text/html"],
  "/menu": ["menu.html", "text/html; charset=utf-8"],
  "/events": ["events.html", "application/xhtml+xml"],
  "/private/staff": ["private/staff.html", "text/html"],
  "/brochure.pdf": ["brochure.pdf", "application/pdf"],
};

export interface SiteServerOptions {
  /** Serve the sitemaps (else 404 for them). */
  sitemaps?: boolean;
  /** Lines added to robots.txt's `User-agent: *` group. */
  robotsRules?: string[];
  /** More `<loc>`s at the end of the sitemap (`{origin}` becomes the site's origin). */
  extraLocs?: string[];
  /** Paths answered with a 302 to the location (`{origin}` as above). */
  redirects?: Record<string, string>;
  /** By page path: markup put at the start of its `<head>`, headers added to its answer. */
  pageEdits?: Record<string, { head?: string; headers?: Record<string, string> }>;
}

export interface SiteServer {
  origin: string;
  port: number;
  /** Host and port: the site's domain. */
  domain: string;
  /** The path (with query) of each request, in arrival order. */
  requested: string[];
  userAgents: (string | undefined)[];
  close(): Promise<void>;
}

export async function startSiteServer(
  options: SiteServerOptions = {},
  host = "127.0.0.1",
): Promise<SiteServer> {
  const requested: string[] = [];
  const userAgents: (string | undefined)[] = [];
  let origin = "";
  const fill = (text: string) => text.replaceAll("{origin}", origin);
  const routes: Record<string, () => Promise<[number, string, Buffer | string]>> = {
    "/robots.txt": async () => [
      200,
      "text/plain",
      [
        "User-agent: *",
        "Disallow: /private/",
        ...(options.robotsRules ?? []),
        "",
        `Sitemap: ${origin}/sitemap-index.xml`,
        "",
      ].join("\n"),
    ],
    "/sitemap-index.xml": async () => [
      200,
      "application/xml",
      `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>${origin}/sitemaps/pages.xml.gz</loc></sitemap>
</sitemapindex>`,
    ],
    "/sitemaps/pages.xml.gz": async () => [
      200,
      "application/gzip",
      gzipSync(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${[...SITEMAP_PATHS.map((p) => `${origin}${p}`), ...(options.extraLocs ?? []).map(fill)]
  .map((loc) => `  <url><loc>${loc.replaceAll("&", "&amp;")}</loc></url>`)
  .join("\n")}
</urlset>`),
    ],
  };
  const server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    requested.push(url);
    userAgents.push(req.headers["user-agent"]);
    const pathname = url.split("?")[0]!;
    void answer(pathname).then(([status, type, body, location]) => {
      const edit = options.pageEdits?.[pathname];
      res.writeHead(status, {
        "content-type": type,
        ...(location === undefined ? {} : { location }),
        ...edit?.headers,
      });
      res.end(
        edit?.head === undefined ? body : body.toString().replace("<head>", `<head>${edit.head}`),
      );
    });
  });
  async function answer(pathname: string): Promise<[number, string, Buffer | string, string?]> {
    const redirect = options.redirects?.[pathname];
    if (redirect !== undefined) return [302, "text/plain", "", fill(redirect)];
    if (pathname === "/loop-a") return [302, "text/plain", "", "/loop-b"];
    if (pathname === "/loop-b") return [301, "text/plain", "", `${origin}/loop-a`];
    const route = routes[pathname];
    const isSitemap = pathname !== "/robots.txt";
    if (route !== undefined && (options.sitemaps !== false || !isSitemap)) return route();
    const file = FILES[pathname];
    if (file === undefined) return [404, "text/html", "<h1>Not found</h1>"];
    return [200, file[1], await readFile(path.join(FOLDER, file[0]))];
  }
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const domain = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  origin = `http://${domain}`;
  return {
    origin,
    port,
    domain,
    requested,
    userAgents,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
