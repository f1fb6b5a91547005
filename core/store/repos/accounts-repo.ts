/**
 * People who sign in to the dashboard (migrations 001, 018 and 021): users, their workspaces and
 * roles, their server-side sessions, and the single-use links mailed to them.
 */
import type { Knex } from "knex";

export interface UserRow {
  id: string;
  /** Lower case. */
  email: string;
  /** The auth plugin's hash (Argon2id for auth-local); null for a user who never set one. */
  password_hash: string | null;
  created_at: number;
  /** When the address was proved (migration 021); null for a sign-up not confirmed yet. */
  verified_at: number | null;
}

export type Role = "owner" | "member";

export interface MembershipRow {
  workspace_id: string;
  name: string;
  role: Role;
}

export interface DashboardSessionRow {
  id: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export type AuthTokenKind = "magic_link" | "setup" | "invitation" | "signup";

export interface AuthTokenRow {
  token_hash: string;
  kind: AuthTokenKind;
  /** A magic link's user, or the account a sign-up's confirmation proves. */
  user_id: string | null;
  /** A setup link's or an invitation's workspace. */
  workspace_id: string | null;
  /** An invitation's address. */
  email: string | null;
  /** An invitation's role (a setup link's is owner). */
  role: Role | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  /** A sign-up's password hash, the account's once confirmed. */
  password_hash?: string | null;
  /** A sign-up's workspace name, made once confirmed. */
  workspace_name?: string | null;
}

export class AccountsRepo {
  constructor(private readonly knex: Knex) {}

  async insertUser(row: UserRow): Promise<void> {
    await this.knex("users").insert(row);
  }

  async userByEmail(email: string): Promise<UserRow | undefined> {
    return this.knex<UserRow>("users").where({ email: email.toLowerCase() }).first();
  }

  async user(id: string): Promise<UserRow | undefined> {
    return this.knex<UserRow>("users").where({ id }).first();
  }

  /**
   * Gives an account whose address is not proved yet this password hash and marks it proved: true,
   * or false when it was proved already (another link won the race).
   */
  async markVerified(userId: string, passwordHash: string, at: number): Promise<boolean> {
    const changed = await this.knex("users")
      .where({ id: userId })
      .whereNull("verified_at")
      .update({ password_hash: passwordHash, verified_at: at });
    return changed === 1;
  }

  async addMember(workspaceId: string, userId: string, role: Role, at: number): Promise<void> {
    await this.knex("workspace_members").insert({
      workspace_id: workspaceId,
      user_id: userId,
      role,
      created_at: at,
    });
  }

  /** The user's role in the workspace, if they belong to it. */
  async roleIn(workspaceId: string, userId: string): Promise<Role | undefined> {
    const row = await this.knex("workspace_members")
      .where({ workspace_id: workspaceId, user_id: userId })
      .first<{ role: Role } | undefined>("role");
    return row?.role;
  }

  /** Makes the user a member with `role`, or gives a member that role. */
  async setMember(workspaceId: string, userId: string, role: Role, at: number): Promise<void> {
    const changed = await this.knex("workspace_members")
      .where({ workspace_id: workspaceId, user_id: userId })
      .update({ role });
    if (changed === 0) await this.addMember(workspaceId, userId, role, at);
  }

  /** The workspace's members, oldest first. */
  async members(
    workspaceId: string,
  ): Promise<{ user_id: string; email: string; role: Role; created_at: number }[]> {
    return this.knex("workspace_members")
      .join("users", "users.id", "workspace_members.user_id")
      .where("workspace_members.workspace_id", workspaceId)
      .orderBy([{ column: "workspace_members.created_at" }, { column: "users.id" }])
      .select(
        "workspace_members.user_id",
        "users.email",
        "workspace_members.role",
        "workspace_members.created_at",
      );
  }

  /** The user's workspaces, oldest membership first. */
  async memberships(userId: string): Promise<MembershipRow[]> {
    return this.knex("workspace_members")
      .join("workspaces", "workspaces.id", "workspace_members.workspace_id")
      .where("workspace_members.user_id", userId)
      .orderBy([{ column: "workspace_members.created_at" }, { column: "workspaces.id" }])
      .select<MembershipRow[]>(
        "workspace_members.workspace_id",
        "workspaces.name",
        "workspace_members.role",
      );
  }

  async insertSession(row: DashboardSessionRow): Promise<void> {
    await this.knex("dashboard_sessions").insert(row);
  }

  async session(id: string): Promise<DashboardSessionRow | undefined> {
    return this.knex<DashboardSessionRow>("dashboard_sessions").where({ id }).first();
  }

  async revokeSession(id: string, at: number): Promise<void> {
    await this.knex("dashboard_sessions")
      .where({ id })
      .whereNull("revoked_at")
      .update({ revoked_at: at });
  }

  /** Ends every session of the user still standing. */
  async revokeSessionsOf(userId: string, at: number): Promise<void> {
    await this.knex("dashboard_sessions")
      .where({ user_id: userId })
      .whereNull("revoked_at")
      .update({ revoked_at: at });
  }

  async insertToken(row: AuthTokenRow): Promise<void> {
    await this.knex("auth_tokens").insert(row);
  }

  /**
   * Uses the token of that hash and kind, once: its row if it was unused and unexpired at `now`
   * (and is now used), else undefined. Two racing uses: the database lets one win.
   */
  async useToken(
    tokenHash: string,
    kind: AuthTokenKind,
    now: number,
  ): Promise<AuthTokenRow | undefined> {
    const changed = await this.knex("auth_tokens")
      .where({ token_hash: tokenHash, kind })
      .whereNull("used_at")
      .where("expires_at", ">", now)
      .update({ used_at: now });
    if (changed !== 1) return undefined;
    return this.knex<AuthTokenRow>("auth_tokens").where({ token_hash: tokenHash }).first();
  }

  /**
   * Deletes up to `limit` tokens expired at `now`, used or not, soonest expired first: how many.
   * None of them can be used any more, so nothing needs them (a sign-up's carries a password
   * hash, which must not stay).
   */
  async deleteExpiredTokens(now: number, limit: number): Promise<number> {
    const hashes = await this.knex("auth_tokens")
      .where("expires_at", "<=", now)
      .orderBy("expires_at")
      .limit(limit)
      .pluck("token_hash");
    if (hashes.length === 0) return 0;
    return this.knex("auth_tokens").whereIn("token_hash", hashes).del();
  }

  /**
   * Deletes up to `limit` users who never proved their address and no longer can (no token of
   * theirs unexpired at `now`), oldest first, unless one belongs to a workspace: how many. The
   * delete checks again, so a sign-up's link added meanwhile keeps its user. Their sessions, which
   * no unproved user can have (session() refuses them anyway), would go with them.
   */
  async deleteUnprovable(now: number, limit: number): Promise<number> {
    const unprovable = (users: Knex.QueryBuilder) =>
      users
        .whereNull("verified_at")
        .whereNotExists((live) =>
          live
            .select(1)
            .from("auth_tokens")
            .where("auth_tokens.user_id", this.knex.ref("users.id"))
            .where("auth_tokens.expires_at", ">", now),
        )
        .whereNotExists((member) =>
          member
            .select(1)
            .from("workspace_members")
            .where("workspace_members.user_id", this.knex.ref("users.id")),
        );
    const ids = await unprovable(this.knex("users")).orderBy("created_at").limit(limit).pluck("id");
    if (ids.length === 0) return 0;
    return unprovable(this.knex("users").whereIn("id", ids)).del();
  }

  /** Deletes the user's tokens of that kind, used or not. */
  async deleteTokensOf(userId: string, kind: AuthTokenKind): Promise<void> {
    await this.knex("auth_tokens").where({ user_id: userId, kind }).delete();
  }
}
