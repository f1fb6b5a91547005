/**
 * Which URLs the crawler may ask for, and under which name: a site's origin (https, plain http
 * only for a localhost or 127.0.0.1 domain, as the widget's Origin rule has it), and the one
 * normal form of a page's URL (same origin only, no fragment, no tracking parameters) so that a
 * page reached by two links or from a sitemap and a link is fetched once.
 */
import { isLocalDomain } from "../../widget/origin.ts";

/**
 * Query parameters that only say where a visitor came from. `ref` is not among them: too many
 * sites use it for content (a product reference, a branch), so dropping it could merge pages.
 */
const TRACKING = new Set(["gclid", "fbclid", "msclkid", "mc_cid", "mc_eid"]);

const isTracking = (name: string): boolean =>
  TRACKING.has(name.toLowerCase()) || name.toLowerCase().startsWith("utm_");

const paramName = (piece: string): string => {
  const raw = piece.split("=", 1)[0] ?? "";
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
};

/** The origin a site is crawled at: `https://<domain>`, `http://` for a local domain. */
export function siteOrigin(domain: string): string {
  const host = domain.trim().toLowerCase();
  const url = new URL(`${isLocalDomain(host) ? "http" : "https"}://${host}`);
  if (url.host !== host || url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    throw new TypeError(`not a domain: ${JSON.stringify(domain)}`);
  }
  return url.origin;
}

/**
 * `href` resolved against `base`, in normal form, when it is a page of `origin`; else undefined
 * (another origin, another scheme, not a URL).
 */
export function pageUrl(href: string, base: string | URL, origin: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href.trim(), base);
  } catch {
    return undefined;
  }
  if (url.origin !== origin) return undefined;
  url.hash = "";
  // Pieces kept as written: re-encoding the others could change what the server sees.
  const pieces = url.search.slice(1).split("&");
  const kept = pieces.filter((piece) => piece !== "" && !isTracking(paramName(piece)));
  url.search = kept.length === 0 ? "" : `?${kept.join("&")}`;
  return url.href;
}
