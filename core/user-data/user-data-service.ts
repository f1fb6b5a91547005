/**
 * Visitor data rights: export and erasure of one visitor (a fingerprint) on one site, asked for by
 * the business's privacy tooling and carried out by jobs.
 *
 * A request is a row of `user_data_requests`, which is also the queue: it is run at once where
 * this instance has the job runner (`user-data.run`), and the sweep job (`user-data.sweep`, every
 * minute on one instance) runs what is due: requests whose retry time came, and requests left
 * running by an instance that died (their lease ran out). A run takes the request's lease first,
 * so two instances never run one request together. A failed run is retried after 1, 5 and 15
 * minutes, then 1, 2, 4 and every 6 hours until the deadline; the owner is alerted well before it
 * (deadline-alerts.ts), and a request still open at its deadline is marked failed.
 */
import crypto from "node:crypto";
import type { Logger } from "pino";
import { isSiteAllowed } from "../auth/authorize.ts";
import type { Principal } from "../auth/principal.ts";
import { errors } from "../errors.ts";
import type { Jobs } from "../jobs/jobs.ts";
import type { Mailer } from "../mail/mailer.ts";
import { open, seal, type KeyRing } from "../security/secret-box.ts";
import type { SiteService } from "../sites/site-service.ts";
import { newId } from "../store/ids.ts";
import { inBatches } from "../store/in-batches.ts";
import type {
  UserDataCursor,
  UserDataKind,
  UserDataRequestRow,
  UserDataStatus,
} from "../store/repos/user-data-repo.ts";
import type { Store } from "../store/store.ts";
import { truncateOwedWal } from "../store/wal-truncation.ts";
import { keysetPage } from "../util/keyset-page.ts";
import { messageOf } from "../util/message-of.ts";
import { alertOwner } from "./deadline-alerts.ts";
import { DownloadLinks } from "./download-link.ts";
import { runErasure, runExport } from "./request-runs.ts";
import { fingerprintsOf, type FingerprintFound } from "./visitor-lookup.ts";
import { requestView, type RequestView } from "./request-view.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The API reference's delivery deadlines. */
export const DEADLINE_MS: Record<UserDataKind, number> = { export: 30 * DAY, delete: 72 * HOUR };
/** When an open request is alerted on: a quarter of the way to its deadline at most. */
export const ALERT_AFTER_MS: Record<UserDataKind, number> = { export: 7 * DAY, delete: 18 * HOUR };
/** …or after this many failed attempts, whichever comes first. */
export const ALERT_AFTER_ATTEMPTS = 5;
/** How long a run holds its request. */
export const RUN_LEASE_MS = 10 * MINUTE;
const RETRY_DELAYS_MS = [MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR, 2 * HOUR, 4 * HOUR, 6 * HOUR];
/** Requests one sweep runs at most; the next sweep takes the rest. */
const SWEEP_RUNS = 20;

/** The job that runs one request. */
export const USER_DATA_RUN_JOB = "user-data.run";

export const FINGERPRINT = /^[0-9a-f]{64}$/;

/** SHA-256 of site and fingerprint: finds a visitor's open requests and exports. */
export const subjectHash = (siteId: string, fingerprint: string) =>
  crypto.createHash("sha256").update(`${siteId}\n${fingerprint}`).digest("hex");

export interface UserDataParts {
  store: Store;
  ring: KeyRing;
  sites: SiteService;
  mailer: Mailer;
  logger: Logger;
  /** Where download links point (PUBLIC_BASE_URL). */
  publicBaseUrl: string;
  now?: () => number;
}

export interface RequestQuery {
  limit: number;
  siteId?: string;
  kind?: UserDataKind;
  status?: UserDataStatus;
  before?: UserDataCursor;
}

export class UserDataService {
  private jobs: Pick<Jobs, "now"> | undefined;
  private readonly now: () => number;
  private readonly links: DownloadLinks;

  constructor(private readonly parts: UserDataParts) {
    this.now = parts.now ?? Date.now;
    this.links = new DownloadLinks(parts.ring);
  }

  /** The job runner requests are run on at once; until attached, the sweep runs them. */
  attach(jobs: Pick<Jobs, "now">): void {
    this.jobs = jobs;
  }

  /**
   * POST /v1/user-data/export and /delete: a new pending request, or the one of that kind already
   * open for the visitor on the site.
   */
  async request(
    principal: Principal,
    kind: UserDataKind,
    body: { site_id: string; user_fingerprint: string },
  ): Promise<RequestView> {
    await this.parts.sites.assertOwned(principal, body.site_id);
    const at = this.now();
    const hash = subjectHash(body.site_id, body.user_fingerprint);
    const row = await this.parts.store.userData.insertOpen({
      id: newId("udr"),
      workspace_id: principal.workspaceId,
      site_id: body.site_id,
      kind,
      status: "pending",
      subject: seal(this.parts.ring, body.user_fingerprint),
      subject_hash: hash,
      open_key: `${kind}:${hash}`,
      requested_by: `${principal.kind}:${principal.keyId}`,
      created_at: at,
      due_by: at + DEADLINE_MS[kind],
      started_at: null,
      finished_at: null,
      attempts: 0,
      next_attempt_at: at,
      lease_until: null,
      last_error: null,
      alerted_at: null,
      result: null,
      download_expires_at: null,
    });
    if (row.status === "pending" && Number(row.attempts) === 0) {
      await this.jobs
        ?.now(USER_DATA_RUN_JOB, { request_id: row.id })
        .catch((err: unknown) =>
          this.parts.logger.warn({ err, request_id: row.id }, "user-data job not queued"),
        );
    }
    return this.view(row);
  }

  /** GET /v1/user-data/requests/:id: 404 for another workspace's or a site the key may not see. */
  async get(principal: Principal, id: string): Promise<RequestView> {
    const row = await this.parts.store.userData.get(id);
    if (
      row === undefined ||
      row.workspace_id !== principal.workspaceId ||
      !isSiteAllowed(principal, row.site_id)
    ) {
      throw errors.notFound("User-data request", id);
    }
    return this.view(row);
  }

  /** GET /v1/user-data/requests: newest first, keyset-paged. */
  async list(
    principal: Principal,
    query: RequestQuery,
  ): Promise<{ items: RequestView[]; next?: UserDataCursor }> {
    if (query.siteId !== undefined) await this.parts.sites.assertOwned(principal, query.siteId);
    const rows = await this.parts.store.userData.list(principal.workspaceId, {
      ...query,
      limit: query.limit + 1,
      siteIds: principal.siteIds === undefined ? undefined : [...principal.siteIds],
    });
    const page = keysetPage(
      rows,
      query.limit,
      (row) => row,
      (last) => ({
        created_at: Number(last.created_at),
        id: last.id,
      }),
    );
    return { items: await Promise.all(page.items.map((row) => this.view(row))), next: page.next };
  }

  /**
   * GET /v1/user-data/lookup: the fingerprints of the site's leads with that email (any case) or
   * phone (any punctuation), each with its leads' ids and the last capture.
   */
  async lookup(
    principal: Principal,
    siteId: string,
    contact: { email: string } | { phone: string },
  ): Promise<FingerprintFound[]> {
    await this.parts.sites.assertOwned(principal, siteId);
    return fingerprintsOf(await this.parts.store.leads.withContact(siteId, contact));
  }

  /**
   * The export document behind a signed link: 403 when the signature does not sign this request
   * until that expiry or the expiry passed, 404 when the document is gone (erased).
   */
  async download(id: string, expires: unknown, signature: unknown): Promise<string> {
    if (!this.links.valid(id, expires, signature, this.now())) {
      throw errors.forbidden("This download link is not valid or has expired", {
        field: "signature",
      });
    }
    const stored = await this.parts.store.userData.getExport(id);
    if (stored === undefined) throw errors.notFound("Export", id);
    return open(this.parts.ring, stored.document);
  }

  /** One attempt at a request (the run job); nothing when another run has it or it is not due. */
  async run(id: string): Promise<void> {
    const { store, logger } = this.parts;
    const at = this.now();
    if (!(await store.userData.claim(id, at, at + RUN_LEASE_MS))) return;
    const row = (await store.userData.get(id)) as UserDataRequestRow;
    try {
      const run = { store, ring: this.parts.ring, now: this.now };
      if (row.kind === "export") await runExport(run, row);
      else if (!(await runErasure(run, row))) {
        logger.warn(
          { request_id: id, site_id: row.site_id },
          "erased data stays in the SQLite write-ahead log while another process reads; the sweep truncates it again",
        );
      }
      logger.info(
        { request_id: id, type: row.kind, site_id: row.site_id },
        "user-data request done",
      );
    } catch (error) {
      const attempts = Number(row.attempts);
      const delay = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1] as number;
      const nextAt = Math.min(this.now() + delay, Number(row.due_by));
      await store.userData.retryLater(id, nextAt, messageOf(error));
      logger.warn(
        { err: error, request_id: id, type: row.kind, attempts, next_attempt_at: nextAt },
        "user-data request failed; retried later",
      );
    }
  }

  /**
   * The sweep job: runs the due requests, raises the alerts due, fails what passed its deadline,
   * deletes the export documents whose link expired, and truncates SQLite's log if an erasure or
   * a site's deletion could not (wal-truncation.ts).
   */
  async sweep(): Promise<{ ran: number; alerted: number; failed: number; expired: number }> {
    const { store } = this.parts;
    await truncateOwedWal(store.db);
    const due = await store.userData.due(this.now(), SWEEP_RUNS);
    for (const id of due) await this.run(id);
    let failed = 0;
    for (const row of await store.userData.overdue(this.now())) {
      const finished = await store.userData.finish(row.id, {
        status: "failed",
        at: this.now(),
        error: row.last_error ?? "the deadline passed before the request could run",
      });
      if (!finished) continue;
      failed++;
      await alertOwner(this.parts, row, true);
    }
    const at = this.now();
    const createdBy = {
      export: at - ALERT_AFTER_MS.export,
      delete: at - ALERT_AFTER_MS.delete,
    };
    let alerted = 0;
    for (const row of await store.userData.toAlert(createdBy, ALERT_AFTER_ATTEMPTS)) {
      if (!(await store.userData.markAlerted(row.id, at))) continue;
      alerted++;
      await alertOwner(this.parts, row, false);
    }
    const expired = await inBatches((limit) => store.userData.deleteExpiredExports(at, limit), 100);
    return { ran: due.length, alerted, failed, expired };
  }

  private async view(row: UserDataRequestRow): Promise<RequestView> {
    if (row.kind !== "export" || row.status !== "done" || row.download_expires_at === null) {
      return requestView(row);
    }
    const expiresAt = Number(row.download_expires_at);
    if (expiresAt <= this.now()) return requestView(row);
    if (!(await this.parts.store.userData.hasExport(row.id))) return requestView(row);
    return requestView(row, this.parts.publicBaseUrl + this.links.path(row.id, expiresAt));
  }
}
