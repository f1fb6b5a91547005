/**
 * Leads: captured by the widget (an email or a phone is required by the schema), updated by the
 * site owner's systems with the lead's own update token or a key of its workspace, and listed by
 * key. Each change and its service event (`lead.captured`, `lead.updated`) are written in one
 * transaction. The update token is sent once, in `lead.captured`: the leads table keeps only its
 * hash, and the stored `lead.captured` keeps the token sealed under the master key (for delivery
 * later, and re-sealed by `secrets rotate`); it is never stored in clear. A callback request
 * (`source: "callback"`) is also mailed to the workspace's contact address (callback-notices.ts).
 */
import crypto from "node:crypto";
import { isSiteAllowed } from "../auth/authorize.ts";
import type { Principal } from "../auth/principal.ts";
import { errors } from "../errors.ts";
import type { EventBus } from "../events/event-bus.ts";
import { hashToken } from "../security/token-hash.ts";
import type { SiteService } from "../sites/site-service.ts";
import { newId } from "../store/ids.ts";
import { phoneDigits, type LeadCursor, type LeadRow } from "../store/repos/leads-repo.ts";
import type { SessionRow } from "../store/repos/sessions-repo.ts";
import type { Store } from "../store/store.ts";
import type { LeadCapture } from "../types/generated/lead-create.ts";
import { replayKey } from "../widget/replay-key.ts";
import type { CallbackNotices } from "./callback-notices.ts";
import { leadView, type LeadView } from "./lead-view.ts";
import { keysetPage } from "../util/keyset-page.ts";

export const LEAD_STATUSES = ["new", "contacted", "qualified", "won", "lost", "spam"] as const;

/** Who updates a lead: the holder of its update token, or a principal of its workspace. */
export type LeadUpdater = { token: string } | { principal: Principal };

export interface LeadChanges {
  status?: string;
  notes?: string | null;
}

export class LeadService {
  private readonly now: () => number;

  constructor(
    private readonly parts: {
      store: Store;
      events: EventBus;
      sites: SiteService;
      /** Mails the workspace of each new callback request. */
      callbacks: CallbackNotices;
      now?: () => number;
    },
  ) {
    this.now = parts.now ?? Date.now;
  }

  /**
   * POST /leads: the lead and `lead.captured` (with the update token, sealed at rest) in one
   * transaction. The same signed body again in the session is the same lead: answered with its
   * id, announced once.
   */
  async capture(
    session: SessionRow,
    body: LeadCapture,
    signedBody: Buffer,
  ): Promise<{ lead_id: string }> {
    const at = this.now();
    const updateToken = `lt_${crypto.randomBytes(24).toString("base64url")}`;
    const row: LeadRow & { replay_key: string } = {
      id: newId("lead"),
      site_id: session.site_id,
      workspace_id: session.workspace_id,
      session_id: session.id,
      user_fingerprint: session.user_fingerprint,
      name: body.name ?? null,
      email: body.email ?? null,
      phone: body.phone ?? null,
      phone_digits: phoneDigits(body.phone ?? null),
      message: body.message ?? null,
      page_url: body.page_url ?? session.page_url,
      fields: body.fields === undefined ? null : JSON.stringify(body.fields),
      source: body.source ?? "widget",
      reason: body.reason ?? null,
      turns: body.turns === undefined ? null : JSON.stringify(body.turns),
      status: "new",
      notes: null,
      update_token_hash: hashToken(updateToken),
      replay_key: replayKey(session.id, "lead", signedBody),
      created_at: at,
      updated_at: at,
    };
    const lead = leadView(row);
    const leadId = await this.parts.events.transaction(async (tx, record) => {
      const stored = await tx.leads.insertOnce(row);
      if (stored.id !== row.id) return stored.id;
      await record({
        type: "lead.captured",
        workspace_id: row.workspace_id,
        site_id: row.site_id,
        data: {
          site_id: row.site_id,
          lead,
          callback: row.source === "callback",
          reason: row.reason,
          update_token: updateToken,
        },
      });
      return row.id;
    });
    // Once stored, and once only: a replayed request is the same lead, already mailed.
    if (leadId === row.id && row.source === "callback") {
      this.parts.callbacks.notify(row.workspace_id, lead);
    }
    return { lead_id: leadId };
  }

  /** Resolves once the callback mails started so far are sent or failed (a stop waits for it). */
  settled(): Promise<void> {
    return this.parts.callbacks.settled();
  }

  /**
   * PATCH /v1/public/leads/:id: the lead's own update token (401 invalid_token otherwise) or a
   * principal of its workspace allowed its site (404 otherwise); the change and `lead.updated` in
   * one transaction.
   */
  async update(leadId: string, by: LeadUpdater, changes: LeadChanges): Promise<LeadView> {
    const row = await this.parts.store.leads.get(leadId);
    if (!(row !== undefined && mayUpdate(row, by))) {
      if ("token" in by) throw errors.invalidToken();
      throw errors.notFound("Lead", leadId);
    }
    const updated = {
      status: changes.status ?? row.status,
      notes: changes.notes === undefined ? row.notes : changes.notes,
      updated_at: this.now(),
    };
    const lead = leadView({ ...row, ...updated });
    await this.parts.events.transaction(async (tx, record) => {
      await tx.leads.update(leadId, updated);
      await record({
        type: "lead.updated",
        workspace_id: row.workspace_id,
        site_id: row.site_id,
        data: { lead, changes },
      });
    });
    return lead;
  }

  /**
   * GET /v1/leads: the workspace's leads newest first, keyset-paged. A `siteId` the principal may
   * not see is 403, another workspace's 404 (never an empty list).
   */
  async list(
    principal: Principal,
    query: { limit: number; siteId?: string; status?: string; before?: LeadCursor },
  ): Promise<{ items: LeadView[]; next?: LeadCursor }> {
    if (query.siteId !== undefined) await this.parts.sites.assertOwned(principal, query.siteId);
    const rows = await this.parts.store.leads.list(principal.workspaceId, {
      ...query,
      limit: query.limit + 1,
      siteIds: principal.siteIds === undefined ? undefined : [...principal.siteIds],
    });
    return keysetPage(rows, query.limit, leadView, (last) => ({
      created_at: Number(last.created_at),
      id: last.id,
    }));
  }
}

function mayUpdate(row: LeadRow, by: LeadUpdater): boolean {
  if ("token" in by) {
    return crypto.timingSafeEqual(
      Buffer.from(hashToken(by.token)),
      Buffer.from(row.update_token_hash),
    );
  }
  return row.workspace_id === by.principal.workspaceId && isSiteAllowed(by.principal, row.site_id);
}
