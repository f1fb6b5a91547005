/**
 * Workspace API keys: `vk_live_…` / `vk_test_…` values shown once, stored as SHA-256 hashes only
 * (the values are 192 random bits, so a fast hash is enough), with scopes and an optional list of
 * sites.
 */
import crypto from "node:crypto";
import { LRUCache } from "lru-cache";
import { hashToken } from "../security/token-hash.ts";
import { errors } from "../errors.ts";
import type { Principal, Scope } from "../auth/principal.ts";
import { newId } from "../store/ids.ts";
import type { ApiKeyRow } from "../store/repos/api-keys-repo.ts";
import type { Store } from "../store/store.ts";

const KEY_FORMAT = /^vk_(live|test)_[A-Za-z0-9_-]{32}$/;

export interface NewApiKey {
  name: string;
  scopes: Scope[];
  mode: "live" | "test";
  site_ids?: string[];
}

/** The record shown on reads: never the value, only its prefix and last 4 characters. */
export interface ApiKeyView {
  id: string;
  name: string;
  mode: "live" | "test";
  scopes: Scope[];
  site_ids?: string[];
  display: string;
  created_at: string;
  last_used_at?: string;
  revoked_at?: string;
}

/** An API key as stored. */
export const hashKey = hashToken;

const iso = (ms: number | null) => (ms === null ? undefined : new Date(ms).toISOString());

export function viewOf(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    mode: row.mode,
    scopes: JSON.parse(row.scopes) as Scope[],
    site_ids: row.site_ids === null ? undefined : (JSON.parse(row.site_ids) as string[]),
    display: `vk_${row.mode}_••••${row.last4}`,
    created_at: new Date(row.created_at).toISOString(),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
  };
}

/** Keys whose last write is remembered at most (a key forgotten is written once more). */
const TOUCHED_KEYS_HELD = 10_000;

/** How often a key's last use is written; the store query re-checks this across instances. */
const TOUCH_INTERVAL_MS = 60_000;

export class ApiKeyService {
  /**
   * When this instance last wrote each key's use, so a busy key costs no write per request; the
   * most recently used keys only, so memory stays bounded whatever the number of keys.
   */
  private readonly touched = new LRUCache<string, number>({ max: TOUCHED_KEYS_HELD });

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Creates a key; the returned `value` is the only time it is ever shown. A key limited to
   * sites may name only the workspace's own (422 otherwise), whoever asks: the API or the CLI.
   */
  async create(workspaceId: string, input: NewApiKey): Promise<ApiKeyView & { value: string }> {
    if (input.site_ids !== undefined) {
      const owned = await this.store.sites.idsOfWorkspace(workspaceId, input.site_ids);
      const missing = input.site_ids.find((id) => !owned.includes(id));
      if (missing !== undefined) {
        throw errors.validationFailed(`site_ids names ${missing}, not a site of this workspace`, {
          field: "site_ids",
          site_id: missing,
        });
      }
    }
    const value = `vk_${input.mode}_${crypto.randomBytes(24).toString("base64url")}`;
    const row: ApiKeyRow = {
      id: newId("key"),
      workspace_id: workspaceId,
      name: input.name,
      mode: input.mode,
      last4: value.slice(-4),
      key_hash: hashKey(value),
      scopes: JSON.stringify([...new Set(input.scopes)]),
      site_ids: input.site_ids === undefined ? null : JSON.stringify([...new Set(input.site_ids)]),
      created_at: this.now(),
      last_used_at: null,
      revoked_at: null,
    };
    await this.store.apiKeys.insert(row);
    return { ...viewOf(row), value };
  }

  async list(workspaceId: string): Promise<ApiKeyView[]> {
    return (await this.store.apiKeys.list(workspaceId)).map(viewOf);
  }

  async revoke(workspaceId: string, id: string): Promise<void> {
    if (!(await this.store.apiKeys.revoke(workspaceId, id, this.now())))
      throw errors.notFound("API key", id);
  }

  private async touch(id: string): Promise<void> {
    const now = this.now();
    if (now - (this.touched.get(id) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.touched.set(id, now);
    await this.store.apiKeys.touch(id, now);
  }

  /**
   * Turns an `Authorization` header into a principal. Missing, malformed, unknown and revoked keys
   * are all 401 unauthorized, each with its own message.
   */
  async authenticate(header: string | undefined): Promise<Principal> {
    if (header === undefined || header.trim() === "") {
      throw errors.unauthorized("Missing API key: send Authorization: Bearer <API_KEY>");
    }
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
    const value = match?.[1];
    if (value === undefined || !KEY_FORMAT.test(value)) {
      throw errors.unauthorized(
        "Malformed API key: expected Authorization: Bearer vk_live_… or vk_test_…",
      );
    }
    const row = await this.store.apiKeys.findByHash(hashKey(value));
    if (row === undefined) throw errors.unauthorized("Unknown API key");
    if (row.revoked_at !== null) throw errors.unauthorized("This API key has been revoked");
    await this.touch(row.id);
    const view = viewOf(row);
    return {
      kind: "api_key",
      workspaceId: row.workspace_id,
      keyId: row.id,
      scopes: new Set(view.scopes),
      siteIds: view.site_ids === undefined ? undefined : new Set(view.site_ids),
      mode: row.mode,
    };
  }
}
