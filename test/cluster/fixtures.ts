/**
 * Everything around the cluster: a fresh PostgreSQL database, a Redis database of its own
 * (flushed), the OpenAI stand-in (tokens), a REST backend (Django REST Framework conventions,
 * with a `slow/` route answering after 12 s), the crawler's fixture site, and a webhook receiver
 * that can be stopped and started again on its port. Then, through HAProxy with the first key:
 * the widget's site (`shop`, on the REST backend, crawled from the fixture site), the site the
 * API changes (`prop-api`) and a webhook endpoint for `lead.captured`.
 */
import { Redis } from "ioredis";
import knexFactory from "knex";
import { startDrfServer, type DrfServer } from "../helpers/drf-server.ts";
import { startSiteServer, type SiteServer } from "../helpers/crawl-site-server.ts";
import { startOpenAiStandin, type OpenAiStandin } from "../helpers/openai-standin.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "../helpers/test-databases.ts";
import { redisAvailable } from "../helpers/test-redis.ts";
import { startReceiver, type Received, type Receiver } from "../helpers/webhook-receiver.ts";
import { Client } from "./client.ts";
import { Cluster } from "./cluster.ts";

export const REDIS_DB_URL = process.env.CLUSTER_REDIS_URL ?? "redis://127.0.0.1:6379/8";
/** How long the REST backend's `slow/` takes: past the adapter's 10 s deadline. */
export const SLOW_BACKEND_MS = 12_000;

export class World {
  database!: TestDatabase;
  openai!: OpenAiStandin;
  drf!: DrfServer;
  crawlSite!: SiteServer;
  receiver!: Receiver;
  /** What earlier receivers on the same port got before they were stopped. */
  private readonly earlier: Received[] = [];
  cluster!: Cluster;
  readonly client = new Client();
  readonly shop = { siteId: "shop", origin: "" };
  readonly propApi = { siteId: "prop-api", origin: "https://prop-api.invalid" };
  readonly propYaml = { siteId: "prop-yaml", origin: "https://prop-yaml.invalid" };
  webhookId = "";

  /** In a `before` hook: skips (fails under CI=true) without PostgreSQL, Redis or HAProxy. */
  async start(context: Mocha.Context): Promise<void> {
    if (!(await redisAvailable())) missing(context, "Redis");
    const postgres = databaseTargets.find((t) => t.client === "postgres")!;
    const database = await createTestDatabase(postgres);
    if (database === undefined) missing(context, "PostgreSQL");
    this.database = database;
    const redis = new Redis(REDIS_DB_URL);
    await redis.flushdb();
    redis.disconnect();
    this.openai = await startOpenAiStandin();
    this.drf = await startDrfServer({ slowMs: SLOW_BACKEND_MS });
    this.crawlSite = await startSiteServer();
    this.receiver = await startReceiver();
    this.shop.origin = this.crawlSite.origin;
    this.cluster = new Cluster({
      databaseUrl: database.url,
      redisUrl: REDIS_DB_URL,
      env: { OPENAI_API_KEY: this.openai.apiKey, OPENAI_BASE_URL: this.openai.baseUrl },
    });
    await this.cluster.start();
    await this.createSites();
  }

  get api(): string {
    return `${this.cluster.url}/v1`;
  }

  get auth(): Record<string, string> {
    return { Authorization: `Bearer ${this.cluster.firstKey}` };
  }

  /** Every webhook request received, by this receiver and those before it on the same port. */
  received(): Received[] {
    return [...this.earlier, ...this.receiver.received];
  }

  async stopReceiver(): Promise<void> {
    this.earlier.push(...this.receiver.received);
    await this.receiver.close();
  }

  async startReceiver(): Promise<void> {
    this.receiver = await startReceiver(() => ({ status: 200 }), this.receiver.port);
  }

  private async createSites(): Promise<void> {
    const created = (op: string, answer: { status: number }) => {
      if (answer.status !== 201) throw new Error(`${op}: ${JSON.stringify(answer)}`);
    };
    const auth = { headers: this.auth };
    created(
      "create shop",
      await this.client.json(
        "create shop",
        `${this.api}/sites`,
        "POST",
        {
          site_id: this.shop.siteId,
          business_name: "Cluster Shop",
          business_description: "Furniture, searched through a REST backend",
          domain: this.crawlSite.domain,
          industry: "retail",
          lead_capture: { enabled: true, fields: ["name", "email"] },
          adapter: {
            type: "rest",
            config: { baseUrl: `${this.drf.origin}/api`, queryMode: "querystring" },
            collections: {
              products: {
                source: "/products/",
                searchable_fields: ["name", "description"],
                filterable_fields: ["price"],
                display_fields: ["name", "price"],
              },
              slow: { source: "/slow/", searchable_fields: ["name"] },
            },
          },
        },
        auth,
      ),
    );
    created(
      "create prop-api",
      await this.client.json(
        "create prop-api",
        `${this.api}/sites`,
        "POST",
        {
          site_id: this.propApi.siteId,
          business_name: "API change 0",
          business_description: "Changed by PATCH while faults happen",
          domain: "prop-api.invalid",
          industry: "general",
        },
        auth,
      ),
    );
    const hook = await this.client.json(
      "create webhook",
      `${this.api}/webhooks`,
      "POST",
      {
        url: this.receiver.url,
        events: ["lead.captured"],
        site_ids: [this.shop.siteId],
      },
      auth,
    );
    created("create webhook", hook);
    this.webhookId = hook.body!.data!.id as string;
  }

  /** Its admin connection may predate the PostgreSQL restart: a fresh one drops it then. */
  private async dropDatabase(): Promise<void> {
    if (this.database === undefined) return;
    try {
      await this.database.drop();
    } catch {
      const url = new URL(this.database.url);
      const name = url.pathname.slice(1);
      url.pathname = "/test";
      const admin = knexFactory({
        client: "pg",
        connection: url.toString(),
        pool: { min: 0, max: 1 },
      });
      try {
        await admin.raw(`drop database if exists ${name} with (force)`);
      } finally {
        await admin.destroy();
      }
    }
  }

  async stop(): Promise<void> {
    const steps = [
      () => this.cluster?.stop(),
      () => this.receiver?.close(),
      () => this.openai?.close(),
      () => this.drf?.close(),
      () => this.crawlSite?.close(),
      () => this.dropDatabase(),
      async () => {
        const redis = new Redis(REDIS_DB_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
        try {
          await redis.connect();
          await redis.flushdb();
        } finally {
          redis.disconnect();
        }
      },
    ];
    for (const step of steps) {
      try {
        await step();
      } catch (error) {
        // eslint-disable-next-line no-console -- cleanup goes on; the reason must still show
        console.warn("cluster cleanup:", error);
      }
    }
  }
}
