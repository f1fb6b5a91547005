/**
 * Widget sessions: minted by the token endpoint, each with a 32-byte signing secret that every
 * later call signs its body with. The secret is stored sealed, so every instance can verify a
 * session another one minted. A session lives 30 minutes without a signed call and 2 hours at
 * most (the API reference); after that, as for an unknown session or a wrong signature, the answer is
 * the same 401 invalid_signature, so a caller learns nothing from which it was.
 */
import crypto from "node:crypto";
import { LRUCache } from "lru-cache";
import { errors } from "../errors.ts";
import { open, seal, type KeyRing } from "../security/secret-box.ts";
import { newId } from "../store/ids.ts";
import { inBatches } from "../store/in-batches.ts";
import type { SessionRow } from "../store/repos/sessions-repo.ts";
import type { ControlledSession } from "../host/call-control.ts";
import type { Store } from "../store/store.ts";
import { VisitorIds, type Visitor } from "./visitor-ids.ts";

export type { Visitor } from "./visitor-ids.ts";

export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_MAX_MS = 2 * 60 * 60_000;
/** A session's last-seen time is written at most this often; memory has the exact one. */
const TOUCH_EVERY_MS = 60_000;
/** A held session is read again this often, so an end on another instance shows here. */
const RELOAD_EVERY_MS = 15_000;
const CACHE_SIZE = 10_000;

const SESSION_ID = /^sess_[0-9a-z]{26}$/;
const SIGNATURE = /^sha256=([0-9a-f]{64})$/;

interface Held {
  row: SessionRow;
  secret: Buffer;
  /** Last signed call seen here, possibly newer than the stored one. */
  lastSeen: number;
  touched: number;
  loaded: number;
}

export class SessionService {
  /** The most recently used sessions, their secrets opened; the least recent leave first. */
  private readonly held: LRUCache<string, Held>;
  private readonly visitorIds: VisitorIds;
  private readonly ipKey: Buffer;

  constructor(
    private readonly store: Store,
    private readonly ring: KeyRing,
    private readonly now: () => number = Date.now,
    options: { maxHeld?: number } = {},
  ) {
    // An idle session is over after SESSION_IDLE_MS anyway: none is held longer unused.
    this.held = new LRUCache<string, Held>({
      max: options.maxHeld ?? CACHE_SIZE,
      ttl: SESSION_IDLE_MS,
      updateAgeOnGet: true,
    });
    this.visitorIds = new VisitorIds(store, ring, now);
    // The hashed IP never leaves the service (and is kept an hour): one key serves every site.
    const primary = ring.keys.get(ring.primaryId) as Buffer;
    this.ipKey = Buffer.from(
      crypto.hkdfSync("sha256", primary, "", "sitevoice visitor fingerprint", 32),
    );
  }

  /**
   * The visitor's ID in the workspace (visitor-ids.ts): links one visitor's sessions on one
   * device across the workspace's sites without keeping their IP or user agent.
   */
  fingerprint(workspaceId: string, visitor: Visitor): Promise<string> {
    return this.visitorIds.of(workspaceId, visitor);
  }

  async create(
    site: { site_id: string; workspace_id: string },
    visitor: Visitor,
    pageUrl?: string,
    providerSession?: ControlledSession,
  ): Promise<{ session: SessionRow; signingSecret: string }> {
    const signingSecret = crypto.randomBytes(32).toString("hex");
    const at = this.now();
    const session: SessionRow = {
      id: newId("sess"),
      site_id: site.site_id,
      workspace_id: site.workspace_id,
      signing_secret: seal(this.ring, signingSecret),
      user_fingerprint: await this.fingerprint(site.workspace_id, visitor),
      ip_hash: crypto.createHmac("sha256", this.ipKey).update(`ip:${visitor.ip}`).digest("hex"),
      page_url: pageUrl ?? null,
      created_at: at,
      last_seen_at: at,
      ended_at: null,
      end_reason: null,
      provider_session: providerSession === undefined ? null : JSON.stringify(providerSession),
    };
    await this.store.sessions.insert(session);
    this.hold(session, signingSecret);
    return { session, signingSecret };
  }

  /**
   * The open session of `siteId` named by `sessionId` whose secret signed `body` as `signature`
   * says; else 401 invalid_signature, whatever the reason. Never throws anything else for a bad
   * header.
   */
  async verify(
    siteId: string,
    sessionId: string | string[] | undefined,
    signature: string | string[] | undefined,
    body: Buffer,
  ): Promise<SessionRow> {
    const given = typeof signature === "string" ? SIGNATURE.exec(signature) : null;
    if (given === null || typeof sessionId !== "string" || !SESSION_ID.test(sessionId)) {
      throw invalidSignature();
    }
    const held = await this.load(sessionId);
    const expected = held && crypto.createHmac("sha256", held.secret).update(body).digest();
    const signed =
      expected !== undefined &&
      crypto.timingSafeEqual(expected, Buffer.from(given[1] as string, "hex"));
    if (!held || !signed || held.row.site_id !== siteId || !(await this.open(held))) {
      throw invalidSignature();
    }
    const at = this.now();
    held.lastSeen = Math.max(held.lastSeen, at);
    if (at - held.touched >= TOUCH_EVERY_MS) {
      held.touched = at;
      await this.store.sessions.touch(sessionId, at);
    }
    return held.row;
  }

  /** How many sessions are held (bounded by `maxHeld`). */
  get heldCount(): number {
    return this.held.size;
  }

  /** Drops the copy held of a session that ended (the store says it ended; this is the cache). */
  forget(sessionId: string): void {
    this.held.delete(sessionId);
  }

  /** Open sessions past their idle or total lifetime, for the sweeper. */
  async expired(limit = 500): Promise<SessionRow[]> {
    const at = this.now();
    return this.store.sessions.stale(at - SESSION_IDLE_MS, at - SESSION_MAX_MS, limit);
  }

  /** Keeps the instructions and tools of the session's latest provider session (a resumption). */
  async keepProviderSession(sessionId: string, session: ControlledSession): Promise<void> {
    const json = JSON.stringify(session);
    await this.store.sessions.keepProviderSession(sessionId, json);
    const held = this.held.get(sessionId);
    if (held !== undefined) held.row = { ...held.row, provider_session: json };
  }

  /** Drops IP hashes older than an hour (the API reference's retention), `batch` at a time; how many. */
  forgetIps(batch: number): Promise<number> {
    const before = this.now() - 60 * 60_000;
    return inBatches((limit) => this.store.sessions.forgetIps(before, limit), batch);
  }

  /** Whether the session is still open; a stale copy is read again before saying no. */
  private async open(held: Held): Promise<boolean> {
    const alive = (row: SessionRow, lastSeen: number) => {
      const at = this.now();
      return (
        row.ended_at === null &&
        at - lastSeen < SESSION_IDLE_MS &&
        at - row.created_at < SESSION_MAX_MS
      );
    };
    if (alive(held.row, held.lastSeen)) return true;
    // Another instance may have seen later calls, or the session may have ended there.
    const fresh = await this.store.sessions.get(held.row.id);
    if (fresh === undefined) return false;
    held.row = fresh;
    held.lastSeen = Math.max(held.lastSeen, fresh.last_seen_at);
    return alive(fresh, held.lastSeen);
  }

  private async load(sessionId: string): Promise<Held | undefined> {
    const held = this.held.get(sessionId);
    if (held !== undefined && this.now() - held.loaded < RELOAD_EVERY_MS) return held;
    const row = await this.store.sessions.get(sessionId);
    if (held !== undefined && row !== undefined) {
      held.row = row;
      held.lastSeen = Math.max(held.lastSeen, row.last_seen_at);
      held.loaded = this.now();
      return held;
    }
    return row === undefined ? undefined : this.hold(row, open(this.ring, row.signing_secret));
  }

  private hold(row: SessionRow, secret: string): Held {
    // The HMAC key is the secret string as returned to the widget (its UTF-8 bytes).
    const held: Held = {
      row,
      secret: Buffer.from(secret, "utf8"),
      lastSeen: row.last_seen_at,
      touched: row.last_seen_at,
      loaded: this.now(),
    };
    this.held.set(row.id, held);
    return held;
  }
}

const invalidSignature = () => errors.invalidSignature();
