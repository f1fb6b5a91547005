/**
 * Where `sitevoice diff | sync | pull` read and write sites: the local store (through the same
 * SiteService the API uses), or a running service over HTTP with an API key. Both answer in the
 * same shapes and throw the same ServiceErrors, so the commands do not know which they talk to.
 */
import { errorCodes, ServiceError, type ErrorCode } from "../../errors.ts";
import type { Principal } from "../../auth/principal.ts";
import type { SitePlan, SiteService, SiteView } from "../site-service.ts";

export interface PutResult {
  site: SiteView;
  created: boolean;
  changed: boolean;
}

export interface SiteTarget {
  /** For messages: "the local store" or the service's URL. */
  readonly label: string;
  /** Every site the caller may see, secrets masked. */
  list(): Promise<SiteView[]>;
  /** What `put` would do, checked by the service without writing. */
  plan(siteId: string, site: object): Promise<SitePlan>;
  /** Makes the site exactly `site`; recorded as a change from YAML. */
  put(siteId: string, site: object): Promise<PutResult>;
  delete(siteId: string): Promise<void>;
}

const PAGE = 100;

export function localTarget(sites: SiteService, principal: Principal): SiteTarget {
  return {
    label: "the local store",
    async list() {
      const all: SiteView[] = [];
      let after: Parameters<SiteService["list"]>[1]["after"];
      do {
        const page = await sites.list(principal, { limit: PAGE, after });
        all.push(...page.items);
        after = page.next;
      } while (after !== undefined);
      return all;
    },
    plan: (siteId, site) => sites.plan(principal, siteId, site),
    put: (siteId, site) => sites.put(principal, siteId, site, "yaml"),
    delete: (siteId) => sites.delete(principal, siteId),
  };
}

interface Envelope {
  status: number;
  success?: boolean;
  data?: unknown;
  meta?: Record<string, unknown>;
  error?: { code?: string; message?: string; details?: Record<string, unknown> };
}

/**
 * A running service at `baseUrl` (its public URL, without `/v1`), called with `apiKey`, which
 * needs sites:read, and sites:write to change anything. Sites are sent as YAML, so their versions
 * record the source `yaml`, as a local sync does.
 */
export function remoteTarget(
  baseUrl: string,
  apiKey: string,
  fetchImpl: typeof fetch = fetch,
): SiteTarget {
  let root: URL;
  try {
    root = new URL(baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
  } catch {
    throw new Error(`--remote must be the service's URL, such as https://voice.example.com`);
  }
  if (root.protocol !== "https:" && root.protocol !== "http:") {
    throw new Error(`--remote must be an http(s) URL (got ${root.protocol})`);
  }

  async function call(method: string, path: string, body?: string): Promise<Envelope> {
    // The path is relative, so a service under a path prefix keeps it.
    const url = new URL(path, root);
    let response: Response;
    try {
      response = await fetchImpl(url, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/yaml" }),
        },
        body,
        redirect: "error",
      });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      throw new Error(`cannot reach ${root.origin}: ${cause ?? (error as Error).message}`);
    }
    const text = await response.text();
    let envelope: Envelope;
    try {
      envelope = { ...(JSON.parse(text) as Omit<Envelope, "status">), status: response.status };
    } catch {
      throw new Error(
        `${method} ${url.pathname}: ${response.status} ${response.statusText}, not a Sitevoice answer`,
      );
    }
    if (response.ok && envelope.success === true) return envelope;
    const code = envelope.error?.code ?? "";
    const message = envelope.error?.message ?? `${response.status} ${response.statusText}`;
    if (code in errorCodes) {
      throw new ServiceError(code as ErrorCode, message, { details: envelope.error?.details });
    }
    throw new Error(`${method} ${url.pathname}: ${message}`);
  }

  const sitePath = (siteId: string) => `v1/sites/${encodeURIComponent(siteId)}`;
  const asYaml = (site: object) => JSON.stringify(site); // JSON is YAML; no re-quoting surprises

  return {
    label: root.origin + root.pathname.replace(/\/$/, ""),
    async list() {
      const all: SiteView[] = [];
      let cursor: string | null | undefined;
      do {
        const query = new URLSearchParams({ limit: String(PAGE) });
        if (cursor) query.set("cursor", cursor);
        const answer = await call("GET", `v1/sites?${query}`);
        all.push(...(answer.data as SiteView[]));
        cursor = answer.meta?.next_cursor as string | null | undefined;
      } while (cursor);
      return all;
    },
    async plan(siteId, site) {
      return (await call("PUT", `${sitePath(siteId)}?dry_run=true`, asYaml(site))).data as SitePlan;
    },
    async put(siteId, site) {
      const answer = await call("PUT", sitePath(siteId), asYaml(site));
      const view = answer.data as SiteView;
      return {
        site: view,
        created: answer.status === 201,
        changed: answer.meta?.changed === true,
      };
    },
    async delete(siteId) {
      await call("DELETE", sitePath(siteId));
    },
  };
}
