/**
 * Within a workspace one domain belongs to one site: the domain and every additional domain of a
 * site are rows of `site_domains`, unique per workspace, written in the transaction of the site's
 * change. (Across workspaces a domain may repeat, so nobody can lock a business out of the service
 * by claiming its domain first.)
 */
import { errors } from "../errors.ts";
import { isUniqueViolation } from "../store/store-errors.ts";
import type { Store } from "../store/store.ts";
import { problemsError, type Problem } from "../validation/problems-error.ts";
import type { SiteConfig } from "./site-types.ts";

/** A domain of a site, stored in lower case, with the field that names it. */
interface NamedDomain {
  domain: string;
  field: string;
}

/**
 * Every domain a site names (in lower case), each once, with its field; from a site not yet
 * checked, only those written as a host name could be: text, at a field `skip` does not refuse.
 */
export function domainsOf(
  site: { domain?: unknown; additional_domains?: unknown },
  skip: (field: string) => boolean = () => false,
): NamedDomain[] {
  const fields = new Map<string, string>();
  const add = (domain: unknown, field: string) => {
    if (typeof domain !== "string" || skip(field)) return;
    const lower = domain.toLowerCase();
    if (!fields.has(lower)) fields.set(lower, field);
  };
  add(site.domain, "domain");
  if (Array.isArray(site.additional_domains) && !skip("additional_domains")) {
    site.additional_domains.forEach((domain, index) => add(domain, `additional_domains.${index}`));
  }
  return [...fields].map(([domain, field]) => ({ domain, field }));
}

/**
 * A conflict problem for each of `domains` that another site of the workspace holds (`siteId`'s
 * own are its to keep), naming the domain, its field and the site holding it.
 */
export async function domainConflicts(
  store: Store,
  workspaceId: string,
  domains: readonly NamedDomain[],
  siteId?: string,
): Promise<Problem[]> {
  const owners = await store.sites.domainOwners(
    workspaceId,
    domains.map((d) => d.domain),
    siteId,
  );
  return domains.flatMap(({ domain, field }) => {
    const owner = owners.find((o) => o.domain === domain)?.site_id;
    return owner === undefined ? [] : [domainTaken(domain, field, owner)];
  });
}

/** 409 when other sites of the workspace have some of the site's domains, naming each. */
export async function assertDomainsFree(store: Store, workspaceId: string, site: SiteConfig) {
  const conflicts = await domainConflicts(store, workspaceId, domainsOf(site), site.site_id);
  if (conflicts.length > 0) throw problemsError(conflicts);
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
    const { domain, field } = domains[0] ?? { domain: site.domain, field: "domain" };
    throw errors.conflict(`Domain ${domain} already belongs to another site of this workspace`, {
      field,
      domain,
    });
  }
}

const domainTaken = (domain: string, field: string, owner: string): Problem => ({
  field,
  message: `Domain ${domain} already belongs to site '${owner}' of this workspace`,
  kind: "conflict",
  details: { domain, site_id: owner },
});
