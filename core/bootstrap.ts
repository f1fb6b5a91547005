/**
 * First start of the embedded default: a default workspace and one API key with every scope in
 * test mode, printed once. Later starts find the workspace and print nothing.
 */
import type { ApiKeyService } from "./keys/api-key-service.ts";
import { scopes } from "./auth/principal.ts";
import type { Plan } from "./settings.ts";
import { isUniqueViolation } from "./store/store-errors.ts";
import type { Store } from "./store/store.ts";

export const DEFAULT_WORKSPACE_ID = "ws_default";

export interface Bootstrap {
  workspaceId: string;
  /** Only on the very first start. */
  firstKey?: string;
}

export async function bootstrap(
  store: Store,
  keys: ApiKeyService,
  plan: Plan,
  now = Date.now,
): Promise<Bootstrap> {
  const existing = await store.workspaces.first();
  if (existing !== undefined) return { workspaceId: existing.id };
  // A fixed id: when several instances start at once on one database, one insert wins and the
  // others find its workspace.
  const workspaceId = DEFAULT_WORKSPACE_ID;
  try {
    await store.workspaces.insert({
      id: workspaceId,
      name: "Default workspace",
      plan,
      created_at: now(),
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { workspaceId };
    throw error;
  }
  const key = await keys.create(workspaceId, {
    name: "First key",
    scopes: [...scopes],
    mode: "test",
  });
  return { workspaceId, firstKey: key.value };
}
