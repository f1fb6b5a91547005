/**
 * First start of the embedded default: a default workspace, one API key with every scope in
 * test mode and the first owner's dashboard setup link (valid 24 hours), printed once. Later
 * starts find the workspace and print nothing. Every start sets the default workspace's contact
 * email from SITEVOICE_OWNER_EMAIL and its plan from SITEVOICE_DEFAULT_PLAN when they are given
 * (a changed setting replaces the stored value; an unset one leaves it).
 */
import { issueSetupLink } from "./accounts/workspace-people.ts";
import type { ApiKeyService } from "./keys/api-key-service.ts";
import { scopes } from "./auth/principal.ts";
import type { Plan, Settings } from "./settings.ts";
import type { WorkspaceRow } from "./store/repos/workspaces-repo.ts";
import { isUniqueViolation } from "./store/store-errors.ts";
import type { Store } from "./store/store.ts";

export const DEFAULT_WORKSPACE_ID = "ws_default";

/**
 * The plan the default workspace has once a start's bootstrap ran: SITEVOICE_DEFAULT_PLAN when
 * given, else its stored plan, else (a new one) `business`: a self-hosted service is not
 * limited unless the operator says so.
 */
export function defaultWorkspacePlan(
  existing: Pick<WorkspaceRow, "plan"> | undefined,
  settings: Pick<Settings, "defaultPlan">,
): Plan {
  return settings.defaultPlan ?? existing?.plan ?? "business";
}

export interface Bootstrap {
  workspaceId: string;
  /** Only on the very first start. */
  firstKey?: string;
  /** Only on the very first start: whoever opens it becomes the default workspace's owner. */
  setupLink?: string;
}

export async function bootstrap(
  store: Store,
  keys: ApiKeyService,
  settings: Pick<Settings, "defaultPlan" | "ownerEmail"> & { publicBaseUrl?: string },
  now = Date.now,
): Promise<Bootstrap> {
  const { defaultPlan, ownerEmail } = settings;
  const existing = await store.workspaces.first();
  if (existing !== undefined) {
    if (ownerEmail !== undefined && existing.contact_email !== ownerEmail) {
      await store.workspaces.setContactEmail(existing.id, ownerEmail);
    }
    if (defaultPlan !== undefined && existing.plan !== defaultPlan) {
      await store.workspaces.setPlan(existing.id, defaultPlan);
    }
    return { workspaceId: existing.id };
  }
  // A fixed id: when several instances start at once on one database, one insert wins and the
  // others find its workspace.
  const workspaceId = DEFAULT_WORKSPACE_ID;
  try {
    await store.workspaces.insert({
      id: workspaceId,
      name: "Default workspace",
      plan: defaultWorkspacePlan(undefined, settings),
      created_at: now(),
      contact_email: ownerEmail ?? null,
    });
  } catch (error) {
    // Another instance created it first.
    if (isUniqueViolation(error)) {
      if (ownerEmail !== undefined) await store.workspaces.setContactEmail(workspaceId, ownerEmail);
      if (defaultPlan !== undefined) await store.workspaces.setPlan(workspaceId, defaultPlan);
      return { workspaceId };
    }
    throw error;
  }
  const key = await keys.create(workspaceId, {
    name: "First key",
    scopes: [...scopes],
    mode: "test",
  });
  const setupLink =
    settings.publicBaseUrl === undefined
      ? undefined
      : await issueSetupLink(store, workspaceId, settings.publicBaseUrl, now());
  return { workspaceId, firstKey: key.value, setupLink };
}
