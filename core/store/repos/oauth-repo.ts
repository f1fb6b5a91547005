/**
 * OAuth states and connections (migration 019). Tokens arrive here sealed (core/oauth/ seals and
 * opens them); every change that replaces tokens says which generation it replaces, so a refresh
 * that lost a race never overwrites the newer tokens, and the refresh lease is taken and given
 * back with conditional updates, which every store (SQLite, PostgreSQL, MySQL) makes atomic.
 */
import type { Knex } from "knex";

export interface OAuthStateRow {
  state_hash: string;
  workspace_id: string;
  site_id: string;
  adapter_type: string;
  /** Sealed. */
  code_verifier: string;
  return_to: string;
  started_by: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export type OAuthStatus = "connected" | "reauth_required";

export interface OAuthConnectionRow {
  site_id: string;
  workspace_id: string;
  adapter_type: string;
  destination: string;
  status: OAuthStatus;
  /** Sealed. */
  access_token: string;
  /** Sealed; null when the provider gave none. */
  refresh_token: string | null;
  token_type: string;
  scope: string | null;
  expires_at: number | null;
  failures: number;
  retry_after: number | null;
  last_error: string | null;
  connected_at: number;
  refreshed_at: number | null;
  generation: number;
  refresh_lock_until: number | null;
  refresh_lock_owner: string | null;
}

/** New tokens from a refresh (sealed), replacing those of one generation. */
export interface RefreshedTokens {
  access_token: string;
  refresh_token: string | null;
  token_type: string;
  scope: string | null;
  expires_at: number | null;
}

const numeric = [
  "expires_at",
  "failures",
  "retry_after",
  "connected_at",
  "refreshed_at",
  "generation",
] as const;

/** Drivers answer bigint columns as strings on some stores; numbers everywhere else. */
function connectionOf(row: Record<string, unknown> | undefined): OAuthConnectionRow | undefined {
  if (row === undefined) return undefined;
  const copy = { ...row } as Record<string, unknown>;
  for (const key of [...numeric, "refresh_lock_until"]) {
    if (copy[key] !== null && copy[key] !== undefined) copy[key] = Number(copy[key]);
  }
  return copy as unknown as OAuthConnectionRow;
}

export class OAuthRepo {
  constructor(private readonly knex: Knex) {}

  async insertState(row: OAuthStateRow): Promise<void> {
    await this.knex("oauth_states").insert(row);
  }

  /** The state of that hash, used or not, expired or not: the callback tells each case apart. */
  async state(stateHash: string): Promise<OAuthStateRow | undefined> {
    const row = await this.knex<OAuthStateRow>("oauth_states")
      .where({ state_hash: stateHash })
      .first();
    if (row === undefined) return undefined;
    return {
      ...row,
      created_at: Number(row.created_at),
      expires_at: Number(row.expires_at),
      used_at: row.used_at === null ? null : Number(row.used_at),
    };
  }

  /** Uses the state once: true when it was unused and unexpired at `now` (two racing: one wins). */
  async useState(stateHash: string, now: number): Promise<boolean> {
    const changed = await this.knex("oauth_states")
      .where({ state_hash: stateHash })
      .whereNull("used_at")
      .where("expires_at", ">", now)
      .update({ used_at: now });
    return changed === 1;
  }

  /** Forgets states that expired before `before`; how many went. */
  async deleteStatesExpiredBefore(before: number): Promise<number> {
    return this.knex("oauth_states").where("expires_at", "<", before).delete();
  }

  async connection(siteId: string): Promise<OAuthConnectionRow | undefined> {
    return connectionOf(await this.knex("oauth_connections").where({ site_id: siteId }).first());
  }

  /** The site's connection, replacing any earlier one (a reconnect) at a later generation. */
  async saveConnection(row: Omit<OAuthConnectionRow, "generation">): Promise<void> {
    const previous = await this.connection(row.site_id);
    const generation = (previous?.generation ?? 0) + 1;
    await this.knex("oauth_connections").where({ site_id: row.site_id }).delete();
    await this.knex("oauth_connections").insert({ ...row, generation });
  }

  async deleteConnection(siteId: string): Promise<boolean> {
    return (await this.knex("oauth_connections").where({ site_id: siteId }).delete()) > 0;
  }

  /**
   * Takes the site's refresh lease for `owner` until `until`: true when nobody held it or the
   * holder's lease ran out before `now`.
   */
  async takeRefreshLock(siteId: string, owner: string, now: number, until: number) {
    const changed = await this.knex("oauth_connections")
      .where({ site_id: siteId })
      .andWhere((q) => q.whereNull("refresh_lock_until").orWhere("refresh_lock_until", "<", now))
      .update({ refresh_lock_until: until, refresh_lock_owner: owner });
    return changed === 1;
  }

  /** Gives the lease back, if `owner` still holds it. */
  async releaseRefreshLock(siteId: string, owner: string): Promise<void> {
    await this.knex("oauth_connections")
      .where({ site_id: siteId, refresh_lock_owner: owner })
      .update({ refresh_lock_until: null, refresh_lock_owner: null });
  }

  /**
   * Stores a refresh's tokens over those of `generation`, in one update (the rotated refresh
   * token with its access token): false when the connection changed since (reconnected,
   * disconnected), and then nothing is written.
   */
  async refreshed(siteId: string, generation: number, tokens: RefreshedTokens, at: number) {
    const changed = await this.knex("oauth_connections")
      .where({ site_id: siteId, generation })
      .update({
        ...tokens,
        status: "connected",
        failures: 0,
        retry_after: null,
        last_error: null,
        refreshed_at: at,
        generation: generation + 1,
      });
    return changed === 1;
  }

  /**
   * Counts a failed refresh of `generation`, the next not to be tried before `retryAfter`; the
   * failures in a row after it (0: the connection changed since).
   */
  async refreshFailed(siteId: string, generation: number, error: string, retryAfter: number) {
    await this.knex("oauth_connections")
      .where({ site_id: siteId, generation })
      .update({
        failures: this.knex.raw("failures + 1"),
        last_error: error,
        retry_after: retryAfter,
      });
    const row = await this.connection(siteId);
    return row?.generation === generation ? row.failures : 0;
  }

  /**
   * Marks the connection of `generation` as needing the business to reconnect: true when this
   * call changed it (so one `adapter.error` is sent however many searches saw the failure).
   */
  async requireReauth(siteId: string, generation: number, error: string): Promise<boolean> {
    const changed = await this.knex("oauth_connections")
      .where({ site_id: siteId, generation, status: "connected" })
      .update({ status: "reauth_required", last_error: error });
    return changed === 1;
  }

  /** Every connection's site, generation and sealed tokens, for re-sealing under a new key. */
  async allSealed(): Promise<
    Pick<OAuthConnectionRow, "site_id" | "generation" | "access_token" | "refresh_token">[]
  > {
    const rows = await this.knex("oauth_connections").select(
      "site_id",
      "generation",
      "access_token",
      "refresh_token",
    );
    return rows.map((row: OAuthConnectionRow) => ({ ...row, generation: Number(row.generation) }));
  }

  /** Re-sealed tokens over those of `generation` (same values): false when they changed since. */
  async reseal(
    siteId: string,
    generation: number,
    tokens: Pick<OAuthConnectionRow, "access_token" | "refresh_token">,
  ): Promise<boolean> {
    return (
      (await this.knex("oauth_connections")
        .where({ site_id: siteId, generation })
        .update(tokens)) === 1
    );
  }
}
