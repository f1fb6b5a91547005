/**
 * A workspace's people: the first owner's setup link (made and printed at the first start, 24
 * hours, once) and invitations by an owner (mailed, 7 days, once). Each token is stored as its
 * SHA-256 only and used in the transaction that makes its member, so a failure later leaves it
 * usable. AccountService signs the person in afterwards.
 */
import { errors } from "../errors.ts";
import type { PasswordHasher } from "../host/plugin.ts";
import type { Mailer } from "../mail/mailer.ts";
import { hashToken } from "../security/token-hash.ts";
import type { Role, UserRow } from "../store/repos/accounts-repo.ts";
import type { Store } from "../store/store.ts";
import { claimAccount, insertProvedUser, isProved } from "./address-claim.ts";
import { invitationMail } from "./invitation-mail.ts";
import { newLinkToken } from "./link-token.ts";

export interface PeopleParts {
  store: Store;
  publicBaseUrl: string;
  /** The auth plugin's hasher; 503 without one. */
  hasher(): PasswordHasher;
  now(): number;
  mailer: Mailer;
  /**
   * Runs `work` after the answer (AfterAnswer): not awaited, and tracked so that a stop waits for
   * it; a failure is logged as `failed` with `context`, never thrown.
   */
  later(failed: string, context: Record<string, unknown>, work: () => Promise<unknown>): void;
}

export const SETUP_LINK_TTL_MS = 24 * 60 * 60_000;
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;

/**
 * The first owner's setup link, made at the first start for the default workspace: whoever
 * opens it within 24 hours becomes its owner. Printed once, stored as a hash.
 */
export async function issueSetupLink(
  store: Store,
  workspaceId: string,
  publicBaseUrl: string,
  now: number,
): Promise<string> {
  const { token, hash } = newLinkToken("st");
  await store.accounts.insertToken({
    token_hash: hash,
    kind: "setup",
    user_id: null,
    workspace_id: workspaceId,
    email: null,
    role: "owner",
    created_at: now,
    expires_at: now + SETUP_LINK_TTL_MS,
    used_at: null,
  });
  return `${publicBaseUrl}/dashboard/setup#token=${token}`;
}

/**
 * POST /v1/auth/setup: the first owner's setup link makes `email` the owner of its workspace:
 * a new account with this password, an existing one whose password this is, or one an open
 * sign-up made but never confirmed, which the link's holder claims (address-claim.ts). Once.
 */
export async function setupOwner(
  ctx: PeopleParts,
  body: { token: string; email: string; password: string },
): Promise<UserRow> {
  const email = body.email.toLowerCase();
  const existing = await ctx.store.accounts.userByEmail(email);
  const proved = existing !== undefined && isProved(existing);
  if (proved) {
    const matches =
      existing.password_hash !== null &&
      (await ctx.hasher().verify(existing.password_hash, body.password));
    if (!matches) throw errors.unauthorized("Wrong email or password");
  }
  // Any other, new or left unconfirmed by an open sign-up, is made or claimed with this password.
  const claimHash = proved ? undefined : await ctx.hasher().hash(body.password);
  const user = await ctx.store.transaction(async (tx) => {
    // Used in the transaction: a failure later leaves the link usable.
    const used = await tx.accounts.useToken(hashToken(body.token), "setup", ctx.now());
    if (used?.workspace_id == null) throw errors.invalidToken();
    const at = ctx.now();
    let row = existing;
    if (claimHash !== undefined) {
      row =
        existing === undefined
          ? await insertProvedUser(tx, email, claimHash, at)
          : await claimAccount(tx, existing, claimHash, at);
    }
    // Undefined: its sign-up's link confirmed it meanwhile, with a password not given here.
    if (row === undefined) throw errors.unauthorized("Wrong email or password");
    await tx.accounts.setMember(used.workspace_id, row.id, "owner", at);
    return row;
  });
  return user;
}

/**
 * POST /v1/workspace/invitations: an owner invites `email` as `role`; the mail, sent after the
 * answer, holds a link valid 7 days, once. 403 for a member who is not an owner.
 */
export async function invite(
  ctx: PeopleParts,
  inviter: { id: string; email: string },
  workspaceId: string,
  body: { email: string; role: Role },
): Promise<{ email: string; role: Role; expires_at: string }> {
  const role = await ctx.store.accounts.roleIn(workspaceId, inviter.id);
  if (role !== "owner") {
    throw errors.forbidden("Only an owner of the workspace invites", { reason: "not_owner" });
  }
  const email = body.email.toLowerCase();
  const { token, hash } = newLinkToken("inv");
  const at = ctx.now();
  await ctx.store.accounts.insertToken({
    token_hash: hash,
    kind: "invitation",
    user_id: null,
    workspace_id: workspaceId,
    email,
    role: body.role,
    created_at: at,
    expires_at: at + INVITATION_TTL_MS,
    used_at: null,
  });
  const workspace = await ctx.store.workspaces.get(workspaceId);
  const mail = invitationMail({
    to: email,
    inviter: inviter.email,
    workspaceName: workspace?.name,
    role: body.role,
    link: `${ctx.publicBaseUrl}/dashboard/accept#token=${token}`,
  });
  ctx.later("invitation not mailed", { workspace_id: workspaceId }, () => ctx.mailer.send(mail));
  return { email, role: body.role, expires_at: new Date(at + INVITATION_TTL_MS).toISOString() };
}

/**
 * POST /v1/auth/accept: an invitation's token, once, within 7 days, makes its email a member of
 * its workspace and signs them in. The link proves the address (it was mailed there): an account
 * that proved it already joins as it is (a password given is not its to change); a new one, or
 * one an open sign-up made but never confirmed, which the invitee claims (address-claim.ts),
 * needs the invitee's password. An owner invited again stays owner.
 */
export async function acceptInvitation(
  ctx: PeopleParts,
  body: { token: string; password?: string },
): Promise<UserRow> {
  const passwordHash =
    body.password === undefined ? undefined : await ctx.hasher().hash(body.password);
  const user = await ctx.store.transaction(async (tx) => {
    const used = await tx.accounts.useToken(hashToken(body.token), "invitation", ctx.now());
    if (used?.workspace_id == null || used.email === null || used.role === null) {
      throw errors.invalidToken();
    }
    const at = ctx.now();
    let row = await tx.accounts.userByEmail(used.email);
    if (row === undefined || !isProved(row)) {
      if (passwordHash === undefined) {
        throw errors.invalidRequest("A password is needed to make the account", {
          field: "password",
        });
      }
      // A claim finds nothing to do when its sign-up's link proved it meanwhile: it joins as it is.
      row =
        row === undefined
          ? await insertProvedUser(tx, used.email, passwordHash, at)
          : ((await claimAccount(tx, row, passwordHash, at)) ?? row);
    }
    const current = await tx.accounts.roleIn(used.workspace_id, row.id);
    if (current !== "owner") await tx.accounts.setMember(used.workspace_id, row.id, used.role, at);
    return row;
  });
  return user;
}
