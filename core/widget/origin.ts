/**
 * Which browser origins may call a site's widget endpoints: `https://` plus the domain or an
 * additional domain, exactly (host and port); `http://` too only for a localhost or 127.0.0.1
 * domain, for local development. Anything else, `null` included, is 403.
 */

const LOCAL = /^(localhost|127\.0\.0\.1)(:\d{1,5})?$/;

/** Whether `host` (a domain, with or without a port) is local: plain http is allowed for it. */
export const isLocalDomain = (host: string): boolean => LOCAL.test(host.toLowerCase());

export function allowedOrigins(site: {
  domain: string;
  additional_domains?: string[];
}): Set<string> {
  const origins = new Set<string>();
  for (const host of [site.domain, ...(site.additional_domains ?? [])]) {
    const lower = host.toLowerCase();
    origins.add(`https://${lower}`);
    if (isLocalDomain(lower)) origins.add(`http://${lower}`);
  }
  return origins;
}
