/**
 * The webhook dispatcher: every instance that runs jobs runs one. It takes due deliveries from
 * the outbox (the head of each queue of one endpoint and site, under a lease in the store), sends
 * each queue's deliveries one after another in `created_at` order, and records every attempt with
 * its outcome (delivery.ts). Several queues go out at once, up to `concurrency` per instance; the
 * sends to one endpoint are spaced by the shared rate limit.
 *
 * It wakes when this instance records an event and otherwise looks for due deliveries every
 * `pollMs` (deliveries recorded by another instance, retries coming due). An instance killed
 * mid-send leaves a lease that runs out after `leaseMs`; another instance then sends that delivery
 * again, which is why delivery is at least once and receivers dedupe by event id.
 */
import crypto from "node:crypto";
import type { Logger } from "pino";
import type { DeliveryRow } from "../store/repos/webhook-deliveries-repo.ts";
import type { Store } from "../store/store.ts";
import type { Delivery } from "./delivery.ts";

export interface DispatcherOptions {
  /** Queues sent at once by this instance. */
  concurrency?: number;
  /** How often due deliveries are looked for when nothing wakes the dispatcher. */
  pollMs?: number;
  /** How long a delivery is held by the instance sending it. */
  leaseMs?: number;
  /** Deliveries of one queue sent before its turn goes to the others. */
  runLength?: number;
  now?: () => number;
}

export class WebhookDispatcher {
  /** This instance's name on the leases it takes. */
  readonly owner = `inst_${crypto.randomBytes(8).toString("hex")}`;
  /** Attempts this instance made since it started (for the health of the service, and tests). */
  attempted = 0;
  private readonly active = new Map<string, Promise<number>>();
  private running = false;
  private stopping = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | undefined;
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly runLength: number;
  private readonly now: () => number;

  constructor(
    private readonly store: Store,
    private readonly delivery: Delivery,
    private readonly logger: Logger,
    options: DispatcherOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 16;
    this.pollMs = options.pollMs ?? 1_000;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.runLength = options.runLength ?? 50;
    this.now = options.now ?? Date.now;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = false;
    this.loopDone = this.loop();
  }

  /** Looks for due deliveries now (an event was recorded, a queue finished). */
  wake(): void {
    this.wakeUp?.();
  }

  /** Starts no more sends, and waits for those under way to be recorded. */
  async stop(): Promise<void> {
    this.running = false;
    this.stopping = true;
    this.wake();
    await this.loopDone;
    await Promise.all(this.active.values());
  }

  /**
   * Sends everything due now, queue after queue, until nothing is due; resolves with the number
   * of deliveries attempted. For a clock driven by hand (tests, the CLI); the loop does the same.
   */
  async runDue(): Promise<number> {
    let attempted = 0;
    for (;;) {
      const started = await this.fill();
      if (started === 0 && this.active.size === 0) return attempted;
      const counts = await Promise.all(this.active.values());
      attempted += counts.reduce((sum, n) => sum + n, 0);
    }
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let started = 0;
      try {
        started = await this.fill();
      } catch (error) {
        this.logger.warn({ err: error }, "webhook dispatch: could not read due deliveries");
      }
      if (started === 0) await this.sleep(this.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }

  /** Starts a run for each due queue this instance is not sending already; how many started. */
  private async fill(): Promise<number> {
    const free = this.concurrency - this.active.size;
    if (free <= 0) return 0;
    const heads = await this.store.webhookDeliveries.dueHeads(this.now(), free + this.active.size);
    let started = 0;
    for (const head of heads) {
      const key = `${head.endpoint_id} ${head.site_key}`;
      if (this.active.has(key) || started === free) continue;
      const run = this.runQueue(head)
        .catch((error: unknown) => {
          this.logger.error({ err: error, delivery_id: head.id }, "webhook dispatch failed");
          return 0;
        })
        .finally(() => {
          this.active.delete(key);
          this.wake();
        });
      this.active.set(key, run);
      started += 1;
    }
    return started;
  }

  /** Sends the queue of `head` in order while it stays due and sendable; how many were sent. */
  private async runQueue(head: DeliveryRow): Promise<number> {
    let current: DeliveryRow | undefined = head;
    let sent = 0;
    while (current !== undefined && sent < this.runLength) {
      const now = this.now();
      if (
        !(await this.store.webhookDeliveries.lease(current.id, this.owner, now, now + this.leaseMs))
      ) {
        break;
      }
      const leased = current;
      const outcome = await this.delivery
        .deliver(leased, this.owner, now + this.leaseMs)
        .catch(async (error: unknown) => {
          // Given back at once rather than held until the lease runs out: it is tried again.
          await this.store.webhookDeliveries.release(leased.id, this.owner).catch(() => undefined);
          throw error;
        });
      if (outcome === "attempted") {
        sent += 1;
        this.attempted += 1;
      }
      if (outcome === "stop" || this.stopping) break;
      current = await this.store.webhookDeliveries.nextInQueue(current, this.now());
    }
    return sent;
  }
}
