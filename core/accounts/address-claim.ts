/**
 * An account counts once its address is proved. Until then (an open sign-up not confirmed yet)
 * it signs in by no means, and whoever proves the address claims it: the sign-up whose mailed
 * link is used first, an invitation's acceptance (the mail proves the address), or the first
 * owner's setup link. A claim sets the claimant's password, marks the address proved, ends any
 * session of the account and drops its other sign-ups' links, so that nobody who signed up with
 * an address they do not read keeps anything of it. A sign-up's workspace is made only when its
 * link is used (sign-up.ts): an account claimed otherwise brings none along.
 */
import { newId } from "../store/ids.ts";
import type { UserRow } from "../store/repos/accounts-repo.ts";
import type { Store } from "../store/store.ts";

/** Whether `user` proved its address. */
export const isProved = (user: UserRow): boolean => user.verified_at != null;

/**
 * In the transaction `tx`, makes the unproved `user` the claimant's, with `passwordHash`:
 * the claimed user, or undefined when its address was proved meanwhile (nothing changed).
 */
export async function claimAccount(
  tx: Store,
  user: UserRow,
  passwordHash: string,
  at: number,
): Promise<UserRow | undefined> {
  if (!(await tx.accounts.markVerified(user.id, passwordHash, at))) return undefined;
  await tx.accounts.revokeSessionsOf(user.id, at);
  await tx.accounts.deleteTokensOf(user.id, "signup");
  return { ...user, password_hash: passwordHash, verified_at: at };
}

/** In the transaction `tx`, a new account of `email` whose address is proved now. */
export async function insertProvedUser(
  tx: Store,
  email: string,
  passwordHash: string,
  at: number,
): Promise<UserRow> {
  const row = {
    id: newId("usr"),
    email,
    password_hash: passwordHash,
    created_at: at,
    verified_at: at,
  };
  await tx.accounts.insertUser(row);
  return row;
}
