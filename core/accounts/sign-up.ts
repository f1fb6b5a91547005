/**
 * Open sign-up (`SITEVOICE_SIGNUP=open`): an account counts once its address is proved. A
 * sign-up makes an account that is not proved yet (or finds the one an earlier sign-up of the
 * address made) and mails the address a link, valid 24 hours, once, that holds what this sign-up
 * asked for: its password (hashed) and its workspace's name. The first of the address's links to
 * be used claims the account (address-claim.ts) with its password, makes its workspace and signs
 * in; the address's other links die with it. So a stranger who signs up with someone else's
 * address gets nothing: neither a session nor a workspace, and the address's owner can still
 * sign up (or be invited), which a stranger cannot confirm for them. A sign-up of an address an
 * account confirmed changes nothing and mails its owner a notice instead; its answer is the
 * same, as soon, as any other's, so that sign-up tells nobody which addresses have an account.
 */
import { errors } from "../errors.ts";
import type { PasswordHasher } from "../host/plugin.ts";
import { hashToken } from "../security/token-hash.ts";
import { newId } from "../store/ids.ts";
import type { UserRow } from "../store/repos/accounts-repo.ts";
import { isUniqueViolation } from "../store/store-errors.ts";
import { claimAccount, isProved } from "./address-claim.ts";
import { newLinkToken } from "./link-token.ts";
import { confirmationMail, signUpNoticeMail } from "./sign-up-mails.ts";
import type { PeopleParts } from "./workspace-people.ts";
import { checkWorkspaceName, mailableWorkspaceName } from "./workspace-name.ts";

export const SIGNUP_CONFIRMATION_TTL_MS = 24 * 60 * 60_000;

/**
 * POST /v1/auth/signup (sign-up open): 400 for a workspace name holding a link, 503 without a
 * hasher; else answered at once, the same for every address, with the address given and nothing
 * of an account (not even its id, which would tell that it existed before). Everything that
 * depends on the address runs after the answer (mailSignUp).
 */
export function signUp(
  ctx: PeopleParts,
  body: { email: string; password: string; workspace_name?: string },
): { email: string } {
  const email = body.email.toLowerCase();
  if (body.workspace_name !== undefined) checkWorkspaceName(body.workspace_name, "workspace_name");
  const hasher = ctx.hasher();
  const request: SignUpRequest = {
    email,
    password: body.password,
    workspaceName: body.workspace_name ?? defaultWorkspaceName(email),
  };
  ctx.later("sign-up not mailed", {}, () => mailSignUp(ctx, hasher, request));
  return { email };
}

interface SignUpRequest {
  email: string;
  password: string;
  workspaceName: string;
}

/**
 * After the answer: the owner of an address an account confirmed is mailed a notice and nothing
 * changes; any other address gets a link of this sign-up's, for its account not confirmed yet.
 */
async function mailSignUp(
  ctx: PeopleParts,
  hasher: PasswordHasher,
  request: SignUpRequest,
): Promise<void> {
  // Hashed for a confirmed address too (and before the transaction, which it would hold open):
  // a sign-up costs the service the same whatever the address.
  const passwordHash = await hasher.hash(request.password);
  const token = await addSignUpLink(ctx, request, passwordHash).catch((error: unknown) => {
    // Two sign-ups of one address racing: the unique email let the other's account in first,
    // which this one now finds.
    if (!isUniqueViolation(error)) throw error;
    return addSignUpLink(ctx, request, passwordHash);
  });
  await ctx.mailer.send(
    token === undefined
      ? signUpNoticeMail(request.email, ctx.publicBaseUrl)
      : // A fragment, as a sign-in link's: the page posts it to /v1/auth/verify.
        confirmationMail(request.email, `${ctx.publicBaseUrl}/dashboard/confirm#token=${token}`),
  );
}

/**
 * The address's account not confirmed yet (the one an earlier sign-up made, or a new one) gets a
 * link that carries this sign-up's password hash and workspace name: its token, or undefined
 * when an account confirmed the address (then nothing changes). In one transaction, so that no
 * account stands without its link, which the hourly prune (accounts-prune-job.ts) would take
 * for one whose links all expired.
 */
function addSignUpLink(
  ctx: PeopleParts,
  request: SignUpRequest,
  passwordHash: string,
): Promise<string | undefined> {
  return ctx.store.transaction(async (tx) => {
    const at = ctx.now();
    let user = await tx.accounts.userByEmail(request.email);
    if (user !== undefined && isProved(user)) return undefined;
    if (user === undefined) {
      user = {
        id: newId("usr"),
        email: request.email,
        password_hash: null,
        created_at: at,
        verified_at: null,
      };
      await tx.accounts.insertUser(user);
    }
    const { token, hash } = newLinkToken("su");
    await tx.accounts.insertToken({
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
      workspace_name: request.workspaceName,
    });
    return token;
  });
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

/**
 * A sign-up's workspace name when none is given: the first label of the address's domain (`acme`
 * for ana@acme.example), not the whole domain, which a mail reader would make a link of.
 */
const defaultWorkspaceName = (email: string) =>
  mailableWorkspaceName(email.slice(email.indexOf("@") + 1).split(".")[0]!) ?? "My workspace";
