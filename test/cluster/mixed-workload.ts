/**
 * The mixed workload, all through HAProxy: widget visitors (a token, then signed searches, usage
 * events alone and in batches with client event ids, leads with client ids, and their session's
 * end), the API changing a site (PATCH) and `sitevoice sync --remote` changing another (each
 * change then read on every live instance directly, by its port, until it shows), analytics
 * reads, a crawl refresh, and visitor-data exports. Every acknowledged write is recorded.
 */
import crypto from "node:crypto";
import { openSession, pause, signedPost, type Visitor } from "./client.ts";
import type { World } from "./fixtures.ts";
import { SiteChanges } from "./site-changes.ts";

/** A write the workload sent: its probe (the client's own id), and the ids answered for it. */
export interface Sent {
  probe: string;
  phase: string;
  acked: Set<string>;
  /** The most attempts one send of it took (more than 1: the client retried it). */
  attempts: number;
}

/** A site change and how long each live instance took to show it (ms; -1 if it died meanwhile). */
export interface Change {
  kind: "api" | "sync";
  siteId: string;
  version: number;
  phase: string;
  shownAfter: Record<string, number>;
}

export class Records {
  readonly events = new Map<string, Sent>();
  readonly leads = new Map<string, Sent>();
  readonly changes: Change[] = [];
  readonly userDataRequests = new Set<string>();
  readonly visitors: Visitor[] = [];
  readonly refreshes: { phase: string; crawlId: string }[] = [];
  /** Searches of the slow collection and what they were answered. */
  readonly slowQueries: { phase: string; status: number; code?: string }[] = [];
}

const TERMS = ["sofa", "oak", "blue", "lamp", "wool", "table"];

export class Workload {
  private stopped = true;
  private running: Promise<unknown>[] = [];
  private phase = "";
  private readonly changes: SiteChanges;
  /** What the loops ask while they run: whether to stop, and the phase to file under. */
  private readonly run = { stopped: () => this.stopped, phase: () => this.phase };
  private asked = new Set<string>();

  constructor(
    private readonly world: World,
    readonly records: Records,
  ) {
    this.changes = new SiteChanges(world, records);
  }

  /** Starts every loop under `phase`; `slow` adds visitors that search the slow collection. */
  start(phase: string, options: { visitors?: number; slow?: boolean } = {}): void {
    this.phase = phase;
    this.world.client.phase = phase;
    this.stopped = false;
    const visitors = options.visitors ?? 3;
    this.running = [
      ...Array.from({ length: visitors }, () => this.visitor()),
      this.changes.api(this.run),
      this.changes.sync(this.run),
      this.reads(),
      this.userData(),
      this.refresh(),
      ...(options.slow ? [this.slowSearches()] : []),
    ];
  }

  /** Stops every loop after its current step and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.running);
    this.running = [];
  }

  private get base(): string {
    return this.world.cluster.url;
  }

  private async session(): Promise<Visitor | undefined> {
    const { client, shop } = this.world;
    const ip = `198.51.${crypto.randomInt(0, 256)}.${crypto.randomInt(1, 255)}`;
    const visitor = await openSession(client, `${this.base}/v1`, shop, ip, {
      page_url: `${shop.origin}/`,
    });
    if (visitor === undefined) return undefined;
    this.records.visitors.push(visitor);
    return visitor;
  }

  /** One visitor's conversation: searches, usage events, now and then a lead, then the end. */
  private async visitor(): Promise<void> {
    const { client } = this.world;
    const visitor = await this.session();
    if (visitor === undefined) return;
    const phase = this.phase;
    const sent = (map: Map<string, Sent>, probe: string) => {
      const entry = { probe, phase, acked: new Set<string>(), attempts: 0 };
      map.set(probe, entry);
      return entry;
    };
    for (let k = 1; !this.stopped; k++) {
      await signedPost(client, "query", this.base, visitor, "/query", {
        collection: "products",
        query: TERMS[k % TERMS.length],
        limit: 3,
      });
      const probe = `${visitor.sessionId}.${k}`;
      const single = sent(this.records.events, probe);
      const one = await signedPost(client, "usage event", this.base, visitor, "/analytics/event", {
        type: "function_call",
        function_name: "search_database",
        metadata: { client_event_id: probe, probe },
      });
      single.attempts = one.attempts;
      if (one.status === 202) single.acked.add(one.body!.data!.id);
      if (k % 3 === 0) {
        const batch = [1, 2, 3].map((j) => sent(this.records.events, `${probe}.b${j}`));
        const answer = await signedPost(
          client,
          "usage batch",
          this.base,
          visitor,
          "/analytics/event",
          {
            events: batch.map((b) => ({
              type: "image_description",
              metadata: { client_event_id: b.probe, probe: b.probe },
            })),
          },
        );
        for (const b of batch) b.attempts = answer.attempts;
        if (answer.status === 202) {
          (answer.body!.data!.ids as string[]).forEach((id, j) => batch[j]!.acked.add(id));
        }
      }
      if (k % 4 === 2) {
        const lead = sent(this.records.leads, probe);
        const answer = await signedPost(client, "lead", this.base, visitor, "/leads", {
          name: "Ana Cluster",
          email: `ana+${k}@example.com`,
          message: "Call me about the sofa",
          page_url: `${visitor.origin}/`,
          client_id: probe,
          fields: { probe },
        });
        if (answer.status === 201) lead.acked.add(answer.body!.data!.lead_id);
      }
      await pause(600);
    }
    await signedPost(client, "session end", this.base, visitor, "/analytics/event", {
      type: "session_end",
      metadata: { client_event_id: `${visitor.sessionId}.end` },
    });
  }

  /** Searches of the collection whose backend answers after 12 s: 504 adapter_timeout expected. */
  private async slowSearches(): Promise<void> {
    const visitor = await this.session();
    if (visitor === undefined) return;
    while (!this.stopped) {
      const answer = await signedPost(
        this.world.client,
        "slow query",
        this.base,
        visitor,
        "/query",
        {
          collection: "slow",
          query: "anything",
        },
        { ok: (s) => s === 504 },
      );
      this.records.slowQueries.push({
        phase: this.phase,
        status: answer.status,
        code: answer.body?.error?.code,
      });
    }
  }

  private async reads(): Promise<void> {
    const { client, shop } = this.world;
    const headers = this.world.auth;
    while (!this.stopped) {
      await client.call(
        "events read",
        `${this.world.api}/${shop.siteId}/analytics/events?limit=20`,
        { headers },
      );
      await client.call(
        "summary read",
        `${this.world.api}/${shop.siteId}/analytics/summary?period=day&bucket=hour`,
        {
          headers,
        },
      );
      await pause(500);
    }
  }

  /** An export of each visitor's data, once per visitor (the workspace may ask 100 an hour). */
  private async userData(): Promise<void> {
    while (!this.stopped) {
      await pause(1_500);
      const visitor = this.records.visitors.find((v) => !this.asked.has(v.fingerprint));
      if (visitor === undefined) continue;
      this.asked.add(visitor.fingerprint);
      const answer = await this.world.client.json(
        "user-data export",
        `${this.world.api}/user-data/export`,
        "POST",
        {
          site_id: this.world.shop.siteId,
          user_fingerprint: visitor.fingerprint,
        },
        { headers: this.world.auth },
      );
      if (answer.status === 202) this.records.userDataRequests.add(answer.body!.data!.request_id);
    }
  }

  /** One crawl refresh a phase (the site takes 20 an hour), a moment in. */
  private async refresh(): Promise<void> {
    await pause(1_500);
    if (this.stopped) return;
    const answer = await this.world.client.call(
      "refresh",
      `${this.world.api}/sites/${this.world.shop.siteId}/refresh`,
      {
        method: "POST",
        headers: this.world.auth,
      },
    );
    if (answer.status === 202)
      this.records.refreshes.push({ phase: this.phase, crawlId: answer.body!.data!.crawl_id });
  }
}
