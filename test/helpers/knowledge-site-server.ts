/**
 * The knowledge fixture site (Lindenhof Dental, test/fixtures/knowledge-site/), served for real by
 * node:http the way a well-kept site answers a crawler: each response with a strong ETag (a hash
 * of its body) and a Last-Modified (fixed per page, later when the page changes), 304 to a
 * request whose If-None-Match or If-Modified-Since still holds. Pages can be changed, added and
 * removed while it runs; robots.txt and the sitemap (the fixture's, with the origin filled in)
 * follow. Every request is logged with the validators it carried.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const FOLDER = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "../fixtures/knowledge-site",
);

const read = (file: string) => readFileSync(path.join(FOLDER, file), "utf8");

/** The site's pages, in its sitemap's order (`/staff/rota` among them: robots.txt disallows it). */
export const KNOWLEDGE_SITE_PAGES: string[] = [
  ...read("sitemap.xml").matchAll(/<loc>\{origin\}([^<]*)<\/loc>/g),
].map((match) => match[1]!);

/** The fixture file of a page's path: `/` → index.html, `/de/` → de/index.html, `/faq` → faq.html. */
export function knowledgePageFile(pagePath: string): string {
  const file = pagePath.endsWith("/") ? `${pagePath}index.html` : `${pagePath}.html`;
  return path.join(FOLDER, file);
}

/** When every page was last modified until it is changed: Monday 3 March 2025, 09:00 UTC. */
const FIRST_MODIFIED = Date.UTC(2025, 2, 3, 9);
const DAY = 24 * 60 * 60 * 1000;

export interface KnowledgeSiteOptions {
  /** Send ETags and answer If-None-Match (default true); without, If-None-Match is ignored. */
  etag?: boolean;
  /** Send Last-Modified and answer If-Modified-Since (default true). */
  lastModified?: boolean;
}

export interface KnowledgeSiteRequest {
  method: string;
  /** As requested, with its query. */
  path: string;
  ifNoneMatch?: string;
  ifModifiedSince?: string;
  userAgent?: string;
  status: number;
}

export interface KnowledgeSite {
  origin: string;
  /** Host and port: the site's domain. */
  domain: string;
  port: number;
  /** Every request, in arrival order. */
  log: KnowledgeSiteRequest[];
  requestsFor(path: string): KnowledgeSiteRequest[];
  clearLog(): void;
  /** Changes the page at `path` (or adds it, at the end of the sitemap). */
  setPage(path: string, html: string): void;
  /** Answers 404 for the page from now on, and leaves it out of the sitemap. */
  removePage(path: string): void;
  close(): Promise<void>;
}

interface Resource {
  type: string;
  body: string;
  lastModified: number;
}

export async function startKnowledgeSite(
  options: KnowledgeSiteOptions = {},
): Promise<KnowledgeSite> {
  const useEtag = options.etag ?? true;
  const useLastModified = options.lastModified ?? true;
  const log: KnowledgeSiteRequest[] = [];
  const pages = new Map<string, Resource>(
    KNOWLEDGE_SITE_PAGES.map((pagePath) => [
      pagePath,
      {
        type: "text/html; charset=utf-8",
        body: readFileSync(knowledgePageFile(pagePath), "utf8"),
        lastModified: FIRST_MODIFIED,
      },
    ]),
  );
  let changes = 0;
  let origin = "";

  const resource = (pathname: string): Resource | undefined => {
    if (pathname === "/robots.txt") {
      const body = read("robots.txt").replaceAll("{origin}", origin);
      return { type: "text/plain; charset=utf-8", body, lastModified: FIRST_MODIFIED };
    }
    if (pathname === "/sitemap.xml") return sitemap();
    return pages.get(pathname);
  };

  const sitemap = (): Resource => {
    const lines = [...pages.keys()].map(
      (pagePath) => `  <url><loc>${origin}${pagePath}</loc></url>`,
    );
    const body = read("sitemap.xml").replace(/( {2}<url>.*\n)+/, `${lines.join("\n")}\n`);
    return { type: "application/xml", body, lastModified: FIRST_MODIFIED + changes * DAY };
  };

  const server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    const found = resource(new URL(url, "http://site").pathname);
    const entry: KnowledgeSiteRequest = { method: req.method ?? "GET", path: url, status: 404 };
    const { "if-none-match": ifNoneMatch, "if-modified-since": ifModifiedSince } = req.headers;
    if (ifNoneMatch !== undefined) entry.ifNoneMatch = ifNoneMatch;
    if (ifModifiedSince !== undefined) entry.ifModifiedSince = ifModifiedSince;
    if (req.headers["user-agent"] !== undefined) entry.userAgent = req.headers["user-agent"];
    log.push(entry);
    if (found === undefined) {
      res.writeHead(404, { "content-type": "text/html; charset=utf-8" });
      res.end(req.method === "HEAD" ? undefined : "<h1>Page not found</h1>");
      return;
    }
    const etag = `"${createHash("sha256").update(found.body).digest("base64url").slice(0, 27)}"`;
    const headers: Record<string, string> = { "content-type": found.type };
    if (useEtag) headers["etag"] = etag;
    if (useLastModified) headers["last-modified"] = new Date(found.lastModified).toUTCString();
    entry.status = notModified(etag, found.lastModified) ? 304 : 200;
    res.writeHead(entry.status, headers);
    res.end(entry.status === 304 || req.method === "HEAD" ? undefined : found.body);

    // RFC 9110 §13.2.2: If-None-Match decides when sent (and understood); If-Modified-Since only without it.
    function notModified(current: string, lastModified: number): boolean {
      if (useEtag && ifNoneMatch !== undefined) {
        const tags = ifNoneMatch.split(",").map((tag) => tag.trim().replace(/^W\//, ""));
        return tags.includes("*") || tags.includes(current);
      }
      if (!useLastModified || ifModifiedSince === undefined) return false;
      const since = Date.parse(ifModifiedSince);
      return !Number.isNaN(since) && lastModified <= since;
    }
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const domain = `127.0.0.1:${port}`;
  origin = `http://${domain}`;
  return {
    origin,
    domain,
    port,
    log,
    requestsFor: (pagePath) => log.filter((entry) => entry.path === pagePath),
    clearLog: () => void log.splice(0),
    setPage(pagePath, html) {
      changes++;
      pages.set(pagePath, {
        type: "text/html; charset=utf-8",
        body: html,
        lastModified: FIRST_MODIFIED + changes * DAY,
      });
    },
    removePage(pagePath) {
      changes++;
      pages.delete(pagePath);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
