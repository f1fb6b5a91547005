/**
 * Open sign-up (`SITEVOICE_SIGNUP=open`): an account counts once its address is proved. A
 * sign-up makes an account that is not proved yet (or finds the one an earlier sign-up of the
 * address made) and mails the address a link, valid 24 hours, once, that holds what this sign-up
 * asked for: its password (hashed) and its workspace's name. The first of the address's links to
 * be used claims the account (address-claim.ts) with its password, makes its workspace and signs
 * in; the address's other links die with it. So a stranger who signs up with someone else's
 * address gets nothing: neither a session nor a workspace, and the address's owner can still
 * sign up (or be invited), which a stranger cannot confirm for them.
 */
import { errors } from "../errors.ts";
import { hashToken } from "../security/token-hash.ts";
import { newId } from "../store/ids.ts";
import type { UserRow } from "../store/repos/accounts-repo.ts";
import { claimAccount, isProved } from "./address-claim.ts";
import { newLinkToken } from "./link-token.ts";
import type { PeopleParts } from "./workspace-people.ts";
import { checkWorkspaceName, mailableWorkspaceName } from "./workspace-name.ts";

export const SIGNUP_CONFIRMATION_TTL_MS = 24 * 60 * 60_000;

/**
 * POST /v1/auth/signup (sign-up open): 400 for a workspace name holding a link; 409 for an
 * address an account proved; else the account, not proved yet, and its link is mailed after the
 * answer. A second sign-up of an address not proved yet is answered the same, with a link of its
 * own.
 */
export async function signUp(
  ctx: PeopleParts,
  body: { email: string; password: string; workspace_name?: string },
): Promise<UserRow> {
  const email = body.email.toLowerCase();
  if (body.workspace_name !== undefined) checkWorkspaceName(body.workspace_name, "workspace_name");
  const existing = await ctx.store.accounts.userByEmail(email);
  if (existing !== undefined && isProved(existing)) throw taken();
  const passwordHash = await ctx.hasher().hash(body.password);
  const user = existing ?? (await unprovedAccount(ctx, email));
  const { token, hash } = newLinkToken("su");
  const at = ctx.now();
  await ctx.store.accounts.insertToken({
    token_hash: hash,
    kind: "signup",
    user_id: user.id,
    workspace_id: null,
    email: null,
    role: null,
    created_at: at,
    expires_at: at + SIGNUP_CONFIRMATION_TTL_MS,
    used_at: null,
    password_hash: passwordHash,
    workspace_name: body.workspace_name ?? defaultWorkspaceName(email),
  });
  ctx.mailLater(
    {
      to: email,
      subject: "Confirm your address for Sitevoice",
      text: [
        "Someone, we hope you, signed up for Sitevoice with this address. Open this link within",
        "24 hours to confirm it and sign in. It works once.",
        "",
        // A fragment, as a sign-in link's: the page posts it to /v1/auth/verify.
        `${ctx.publicBaseUrl}/dashboard/confirm#token=${token}`,
        "",
        "If it was not you, ignore this mail: no account counts with this address until it is",
        "confirmed.",
      ].join("\n"),
    },
    "sign-up confirmation not mailed",
    { user_id: user.id },
  );
  return user;
}

/**
 * POST /v1/auth/verify with a sign-up's token (`su_`): once, within 24 hours, and only while the
 * address is not proved, claims the account with that sign-up's password and makes its workspace;
 * else 401 invalid_token.
 */
export async function confirmSignUp(ctx: PeopleParts, token: string): Promise<UserRow> {
  return ctx.store.transaction(async (tx) => {
    const used = await tx.accounts.useToken(hashToken(token), "signup", ctx.now());
    const user = used?.user_id == null ? undefined : await tx.accounts.user(used.user_id);
    if (user === undefined || used?.password_hash == null || isProved(user)) {
      throw errors.invalidToken();
    }
    const at = ctx.now();
    const claimed = await claimAccount(tx, user, used.password_hash, at);
    if (claimed === undefined) throw errors.invalidToken();
    const workspaceId = newId("ws");
    await tx.workspaces.insert({
      id: workspaceId,
      name: used.workspace_name ?? defaultWorkspaceName(user.email),
      plan: "free",
      created_at: at,
      contact_email: user.email,
    });
    await tx.accounts.addMember(workspaceId, user.id, "owner", at);
    return claimed;
  });
}

/** A new account of `email` not proved yet, or the one a racing sign-up of it just made. */
async function unprovedAccount(ctx: PeopleParts, email: string): Promise<UserRow> {
  const row: UserRow = {
    id: newId("usr"),
    email,
    password_hash: null,
    created_at: ctx.now(),
    verified_at: null,
  };
  try {
    await ctx.store.accounts.insertUser(row);
    return row;
  } catch (error) {
    // Two sign-ups of one address racing: the unique email lets one insert win.
    const winner = await ctx.store.accounts.userByEmail(email);
    if (winner === undefined) throw error;
    if (isProved(winner)) throw taken();
    return winner;
  }
}

const taken = () =>
  errors.conflict("An account with this email exists; sign in instead", { field: "email" });

/**
 * A sign-up's workspace name when none is given: the first label of the address's domain (`acme`
 * for ana@acme.example), not the whole domain, which a mail reader would make a link of.
 */
const defaultWorkspaceName = (email: string) =>
  mailableWorkspaceName(email.slice(email.indexOf("@") + 1).split(".")[0]!) ?? "My workspace";
