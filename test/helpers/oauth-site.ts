/**
 * A service with an OAuth client for Airtable pointed at a real OAuth 2.0 server running in the
 * test (oauth-provider.ts), and sites on the Airtable adapter to connect.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../../core/auth/principal.ts";
import { startTestService, type TestService } from "./test-service.ts";
import type { TestOAuthProvider } from "./oauth-provider.ts";

export { BASE_ID };

import { BASE_ID } from "./airtable-products.ts";

/** The service's settings for OAuth tests: the provider as Airtable's client, local networks open. */
export const oauthEnv = (provider: TestOAuthProvider, extra: Record<string, string> = {}) => ({
  SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
  SITEVOICE_OAUTH_CLIENTS: provider.clientsSetting("airtable"),
  SITEVOICE_SIGNUP: "open",
  SITEVOICE_JOBS: "off",
  ...extra,
});

export const startOAuthService = (
  databaseUrl: string,
  provider: TestOAuthProvider,
  extra: Record<string, string> = {},
): Promise<TestService> => startTestService(databaseUrl, oauthEnv(provider, extra));

/** The adapter of an Airtable site whose API is at `apiUrl`, with the conformance fields. */
export const airtableAdapter = (apiUrl: string) => ({
  type: "airtable",
  config: { baseId: BASE_ID, apiUrl },
  collections: {
    products: {
      source: "Products",
      searchable_fields: ["name", "description"],
      filterable_fields: ["category", "color", "price", "in_stock", "released_on"],
      display_fields: ["id", "name", "category", "color", "price", "in_stock"],
    },
  },
});

/** A new Airtable site in `workspaceId` (its own domain); its id. */
export async function airtableSite(
  service: TestService,
  workspaceId: string,
  apiUrl = "http://127.0.0.1:9",
): Promise<string> {
  const siteId = `shop-${crypto.randomBytes(4).toString("hex")}`;
  await service.sites.create(operatorPrincipal(workspaceId, "test"), {
    site_id: siteId,
    business_name: "Nordic Home",
    business_description: "",
    domain: `${siteId}.example`,
    adapter: airtableAdapter(apiUrl),
  });
  return siteId;
}

/** Starts a connection with `key`: the authorization URL's state and the URL. */
export async function startWithKey(service: TestService, key: string, siteId: string) {
  const res = await request(service.server)
    .post(`/v1/sites/${siteId}/oauth/start`)
    .set("Authorization", `Bearer ${key}`)
    .send({})
    .expect(200);
  const url = new URL(res.body.data.authorization_url as string);
  return { url, state: url.searchParams.get("state")!, body: res.body.data };
}

/** `GET /v1/sites/:id/oauth` with `key`. */
export const oauthStatus = (service: TestService, key: string, siteId: string) =>
  request(service.server).get(`/v1/sites/${siteId}/oauth`).set("Authorization", `Bearer ${key}`);

/** `DELETE /v1/sites/:id/oauth` with `key`. */
export const disconnect = (service: TestService, key: string, siteId: string) =>
  request(service.server).delete(`/v1/sites/${siteId}/oauth`).set("Authorization", `Bearer ${key}`);

/** Opens the callback with the provider's answer `query` (and a browser's cookie, if any). */
export function callback(service: TestService, query: URLSearchParams, cookie?: string) {
  const call = request(service.server).get(`/v1/oauth/callback?${query}`);
  return cookie === undefined ? call : call.set("Cookie", cookie);
}

/** The outcome a callback's redirect names (`?oauth=`), after checking it went to the site page. */
export function outcomeOf(location: string | undefined, siteId: string): string | null {
  expect(location, "a redirect").to.be.a("string");
  const url = new URL(location!, "http://service.test");
  expect(url.pathname).to.equal(`/dashboard/sites/${siteId}`);
  return url.searchParams.get("oauth");
}

/** Start, consent and callback with `key`: the site is connected. */
export async function connectWithKey(
  service: TestService,
  provider: TestOAuthProvider,
  key: string,
  siteId: string,
): Promise<void> {
  const { url } = await startWithKey(service, key, siteId);
  const res = await callback(service, await provider.consent(url.href)).expect(303);
  expect(outcomeOf(res.headers.location, siteId)).to.equal("connected");
}
