/** The scopes of the API reference, "API keys". */
export const scopes = [
  "sites:read",
  "sites:write",
  "query:test",
  "analytics:read",
  "webhooks:write",
] as const;
export type Scope = (typeof scopes)[number];

/**
 * Who acts on a workspace: a caller authenticated by an API key, a member signed in to the
 * dashboard, or the operator of the installation (the CLI on the store, the service loading
 * `sites/` at start-up).
 */
export interface Principal {
  kind: "api_key" | "dashboard" | "operator";
  workspaceId: string;
  /** The API key's id; the dashboard user's id; for the operator, the tool (`cli`, `startup`). */
  keyId: string;
  scopes: ReadonlySet<Scope>;
  /** When set, the key may touch only these sites (a per-tenant key). */
  siteIds?: ReadonlySet<string>;
  mode: "live" | "test";
}

/** The actor recorded on site versions and in logs. */
export const actorOf = (principal: Principal) => `${principal.kind}:${principal.keyId}`;

/** The operator of the installation acting on `workspaceId` through `tool`; every scope. */
export const operatorPrincipal = (workspaceId: string, tool: string): Principal => ({
  kind: "operator",
  workspaceId,
  keyId: tool,
  scopes: new Set(scopes),
  mode: "live",
});

/** A member signed in to the dashboard, acting on one of their workspaces; every scope. */
export const dashboardPrincipal = (workspaceId: string, userId: string): Principal => ({
  kind: "dashboard",
  workspaceId,
  keyId: userId,
  scopes: new Set(scopes),
  mode: "live",
});
