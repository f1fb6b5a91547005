/**
 * The store: one repository per table group over one knex instance. `transaction` hands out the
 * same repositories bound to a transaction, so a multi-row change is written whole or not at all.
 */
import { RollupsRepo } from "./repos/usage-rollups.ts";
import { DayRollupsRepo } from "./repos/day-rollups.ts";
import type { Knex } from "knex";
import type { Database } from "./database.ts";
import { ApiKeysRepo } from "./repos/api-keys-repo.ts";
import { CrawlsRepo } from "./repos/crawls-repo.ts";
import { DeletedSitesRepo } from "./repos/deleted-sites-repo.ts";
import { EventsRepo } from "./repos/events-repo.ts";
import { LeadsRepo } from "./repos/leads-repo.ts";
import { SessionsRepo } from "./repos/sessions-repo.ts";
import { SiteIntelligenceRepo } from "./repos/site-intelligence-repo.ts";
import { SiteKnowledgeRepo } from "./repos/site-knowledge-repo.ts";
import { SitesRepo } from "./repos/sites-repo.ts";
import { UsageThresholdsRepo } from "./repos/usage-thresholds-repo.ts";
import { VoiceCallsRepo } from "./repos/voice-calls-repo.ts";
import { CallUsageRepo } from "./repos/call-usage-repo.ts";
import { WebhookDeliveriesRepo } from "./repos/webhook-deliveries-repo.ts";
import { WebhookHealthRepo } from "./repos/webhook-health-repo.ts";
import { WebhookEndpointsRepo } from "./repos/webhook-endpoints-repo.ts";
import { WorkspacesRepo } from "./repos/workspaces-repo.ts";
import { WorkspaceSecretsRepo } from "./repos/workspace-secrets-repo.ts";
import { UserDataRepo } from "./repos/user-data-repo.ts";
import { AccountsRepo } from "./repos/accounts-repo.ts";
import { VisitorDataRepo } from "./repos/visitor-data-repo.ts";
import { OAuthRepo } from "./repos/oauth-repo.ts";

export class Store {
  readonly workspaces: WorkspacesRepo;
  readonly workspaceSecrets: WorkspaceSecretsRepo;
  readonly apiKeys: ApiKeysRepo;
  readonly sites: SitesRepo;
  readonly deletedSites: DeletedSitesRepo;
  readonly sessions: SessionsRepo;
  readonly voiceCalls: VoiceCallsRepo;
  readonly callUsage: CallUsageRepo;
  readonly events: EventsRepo;
  readonly rollups: RollupsRepo;
  readonly dayRollups: DayRollupsRepo;
  readonly usageThresholds: UsageThresholdsRepo;
  readonly leads: LeadsRepo;
  readonly webhookEndpoints: WebhookEndpointsRepo;
  readonly webhookDeliveries: WebhookDeliveriesRepo;
  readonly webhookHealth: WebhookHealthRepo;
  readonly crawls: CrawlsRepo;
  readonly siteIntelligence: SiteIntelligenceRepo;
  readonly siteKnowledge: SiteKnowledgeRepo;
  readonly userData: UserDataRepo;
  readonly visitorData: VisitorDataRepo;
  readonly accounts: AccountsRepo;
  readonly oauth: OAuthRepo;

  constructor(
    readonly db: Database,
    executor: Knex = db.knex,
  ) {
    this.workspaces = new WorkspacesRepo(executor);
    this.workspaceSecrets = new WorkspaceSecretsRepo(executor, db.client);
    this.apiKeys = new ApiKeysRepo(executor);
    this.sites = new SitesRepo(executor);
    this.deletedSites = new DeletedSitesRepo(executor, db.client);
    this.sessions = new SessionsRepo(executor);
    this.voiceCalls = new VoiceCallsRepo(executor, db.client);
    this.callUsage = new CallUsageRepo(executor, db.client);
    this.events = new EventsRepo(executor, db.client);
    this.rollups = new RollupsRepo(executor);
    this.dayRollups = new DayRollupsRepo(executor);
    this.usageThresholds = new UsageThresholdsRepo(executor, db.client);
    this.leads = new LeadsRepo(executor, db.client);
    this.webhookEndpoints = new WebhookEndpointsRepo(executor);
    this.webhookDeliveries = new WebhookDeliveriesRepo(executor);
    this.webhookHealth = new WebhookHealthRepo(executor, db.client);
    this.crawls = new CrawlsRepo(executor, db.client);
    this.siteIntelligence = new SiteIntelligenceRepo(executor);
    this.siteKnowledge = new SiteKnowledgeRepo(executor, db.client);
    this.userData = new UserDataRepo(executor, db.client);
    this.visitorData = new VisitorDataRepo(executor);
    this.accounts = new AccountsRepo(executor);
    this.oauth = new OAuthRepo(executor);
  }

  get client() {
    return this.db.client;
  }

  transaction<T>(work: (tx: Store) => Promise<T>): Promise<T> {
    return this.db.knex.transaction((trx) => work(new Store(this.db, trx)));
  }

  async close(): Promise<void> {
    await this.db.knex.destroy();
  }
}
