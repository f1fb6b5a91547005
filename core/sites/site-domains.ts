/**
 * Within a workspace one domain belongs to one site: the domain and every additional domain of a
 * site are rows of `site_domains`, unique per workspace, written in the transaction of the site's
 * change. (Across workspaces a domain may repeat, so nobody can lock a business out of the service
 * by claiming its domain first.)
 */
import { errors } from "../errors.ts";
import { isUniqueViolation } from "../store/store-errors.ts";
import type { Store } from "../store/store.ts";
import type { SiteConfig } from "./site-types.ts";

/** Every domain of a site (stored in lower case), each once, with the field that names it. */
function domainsOf(site: SiteConfig): { domain: string; field: string }[] {
  const fields = new Map<string, string>([[site.domain, "domain"]]);
  site.additional_domains.forEach((domain, index) => {
    if (!fields.has(domain)) fields.set(domain, `additional_domains.${index}`);
  });
  return [...fields].map(([domain, field]) => ({ domain, field }));
}

/** 409 when another site of the workspace has one of the site's domains (naming it and the field). */
export async function assertDomainsFree(store: Store, workspaceId: string, site: SiteConfig) {
  const domains = domainsOf(site);
  const owners = await store.sites.domainOwners(
    workspaceId,
    domains.map((d) => d.domain),
    site.site_id,
  );
  const taken = domains.find(({ domain }) => owners.some((owner) => owner.domain === domain));
  if (taken === undefined) return;
  const owner = owners.find((o) => o.domain === taken.domain)?.site_id;
  throw domainTaken(taken.domain, taken.field, owner);
}

/** Records the site's domains as its own; a writer that raced to one first makes this 409. */
export async function claimDomains(store: Store, workspaceId: string, site: SiteConfig) {
  const domains = domainsOf(site);
  try {
    await store.sites.setDomains(
      site.site_id,
      workspaceId,
      domains.map((d) => d.domain),
    );
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw domainTaken(domains[0]?.domain ?? site.domain, "domain");
  }
}

const domainTaken = (domain: string, field: string, owner?: string) =>
  errors.conflict(
    `Domain ${domain} already belongs to ${owner === undefined ? "another site" : `site '${owner}'`} of this workspace`,
    { field, domain, ...(owner === undefined ? {} : { site_id: owner }) },
  );
