/**
 * `usage.threshold` (the API reference, "Event types"): a workspace's voice minutes in a calendar month
 * (UTC) crossing 50 %, 80 % and 100 % of the minutes its plan bundles (SITEVOICE_PLAN_MINUTES).
 * Each crossing is recorded once per workspace, month and percent, whoever checks and however
 * often: its marker row and its event are written in one transaction, the event only when the
 * marker is new.
 */
import type { EventBus, ServiceEvent } from "../events/event-bus.ts";
import type { Settings } from "../settings.ts";
import { newId } from "../store/ids.ts";
import { workspaceUsage } from "../store/repos/usage-rollups.ts";
import type { Store } from "../store/store.ts";
import { minutesOf } from "./minutes-of.ts";

export const THRESHOLD_EVENT_TYPE = "usage.threshold";
export const THRESHOLD_PERCENTS = [50, 80, 100] as const;

/** The calendar month (UTC) of `at`: `YYYY-MM`, and its first instant and the next month's. */
export function monthOf(at: number): { month: string; since: number; until: number } {
  const date = new Date(at);
  const since = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const until = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  return { month: new Date(since).toISOString().slice(0, 7), since, until };
}

export interface UsageThresholdParts {
  store: Store;
  events: EventBus;
  planMinutes: Settings["planMinutes"];
  now?: () => number;
}

export class UsageThresholds {
  private readonly now: () => number;

  constructor(private readonly parts: UsageThresholdParts) {
    this.now = parts.now ?? Date.now;
  }

  /**
   * Records a `usage.threshold` event for each percent the workspace's minutes in the month of
   * `at` have reached that none has recorded yet (none for a plan without bundled minutes);
   * resolves with the events this call recorded. The minutes are its sites' session_end seconds
   * in that month's rollups, / 60.
   */
  async check(workspaceId: string, at: number): Promise<ServiceEvent[]> {
    const { store, events, planMinutes } = this.parts;
    const workspace = await store.workspaces.get(workspaceId);
    const included = workspace === undefined ? undefined : planMinutes[workspace.plan];
    if (workspace === undefined || included === undefined) return [];
    const { month, since, until } = monthOf(at);
    const recorded = await store.usageThresholds.percents(workspaceId, month);
    const open = THRESHOLD_PERCENTS.filter((percent) => !recorded.includes(percent));
    if (open.length === 0) return [];
    const [usage] = await workspaceUsage(store.db.knex, { workspaceId, since, until, groupBy: [] });
    const seconds = Number(usage?.seconds ?? 0);
    const due = open.filter((percent) => seconds * 100 >= percent * included * 60);
    const announced: ServiceEvent[] = [];
    for (const percent of due) {
      // One transaction a percent, the marker its first statement (UsageThresholdsRepo.mark).
      const event = await events.transaction(async (tx, record) => {
        const marker = { id: newId("uth"), workspace_id: workspaceId, month, percent };
        if (!(await tx.usageThresholds.mark({ ...marker, created_at: this.now() }))) return;
        return record({
          type: THRESHOLD_EVENT_TYPE,
          workspace_id: workspaceId,
          data: {
            workspace_id: workspaceId,
            plan: workspace.plan,
            month,
            percent,
            minutes_used: minutesOf(seconds),
            minutes_included: included,
          },
        });
      });
      if (event !== undefined) announced.push(event);
    }
    return announced;
  }
}
