/** The scopes of SPEC.md "API keys". */
export const scopes = [
  "sites:read",
  "sites:write",
  "query:test",
  "analytics:read",
  "webhooks:write",
] as const;
export type Scope = (typeof scopes)[number];

/** A caller authenticated by a workspace API key. */
export interface Principal {
  kind: "api_key";
  workspaceId: string;
  keyId: string;
  scopes: ReadonlySet<Scope>;
  /** When set, the key may touch only these sites (a per-tenant key). */
  siteIds?: ReadonlySet<string>;
  mode: "live" | "test";
}

/** The actor recorded on site versions and in logs. */
export const actorOf = (principal: Principal) => `${principal.kind}:${principal.keyId}`;
