/**
 * When the usage thresholds are checked: after the event bus has stored `session_end` events,
 * gathered for `debounceMs` from the first, so a burst makes one check per workspace and month
 * (the month of each event's own time). A failed check is logged; ingestion never waits for one
 * nor hears of it. Session ends still gathered at shutdown go unchecked until the workspace's
 * next one: a check reads the month's total, not what changed.
 */
import type { Logger } from "pino";
import type { EventBus } from "../events/event-bus.ts";
import type { Store } from "../store/store.ts";
import { monthOf, type UsageThresholds } from "./usage-thresholds.ts";

export interface ThresholdWatchOptions {
  events: EventBus;
  store: Store;
  logger: Logger;
  /** How long session ends are gathered before their workspaces are checked. */
  debounceMs?: number;
}

export class ThresholdWatch {
  /** The sites with session ends gathered, by month, with an instant of that month. */
  private gathered = new Map<string, { at: number; siteIds: Set<string> }>();
  private timer: NodeJS.Timeout | undefined;
  private readonly checking = new Set<Promise<void>>();
  private closed = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly thresholds: UsageThresholds,
    private readonly options: ThresholdWatchOptions,
  ) {
    this.unsubscribe = options.events.subscribe((bused) => {
      if (bused.kind !== "usage" || bused.event.type !== "session_end") return;
      this.gather(bused.event.site_id, Date.parse(bused.event.created_at));
    });
  }

  /** Stops gathering and waits for the checks under way; what is gathered is dropped. */
  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    clearTimeout(this.timer);
    this.timer = undefined;
    this.gathered.clear();
    await Promise.all(this.checking);
  }

  private gather(siteId: string, at: number): void {
    if (this.closed) return;
    const { month } = monthOf(at);
    const entry = this.gathered.get(month) ?? { at, siteIds: new Set<string>() };
    entry.siteIds.add(siteId);
    this.gathered.set(month, entry);
    this.timer ??= setTimeout(() => this.checkGathered(), this.options.debounceMs ?? 1_000);
  }

  private checkGathered(): void {
    this.timer = undefined;
    const gathered = [...this.gathered.values()];
    this.gathered.clear();
    const checks = this.check(gathered).finally(() => this.checking.delete(checks));
    this.checking.add(checks);
  }

  private async check(gathered: { at: number; siteIds: Set<string> }[]): Promise<void> {
    for (const { at, siteIds } of gathered) {
      const workspaceIds = await this.options.store.sites
        .workspacesOf([...siteIds])
        .catch(this.failed({ site_ids: [...siteIds] }));
      for (const workspaceId of workspaceIds ?? []) {
        await this.thresholds
          .check(workspaceId, at)
          .catch(this.failed({ workspace_id: workspaceId }));
      }
    }
  }

  private failed(context: Record<string, unknown>): (err: unknown) => undefined {
    return (err) => {
      this.options.logger.error({ err, ...context }, "usage threshold check failed");
      return undefined;
    };
  }
}
