/**
 * Hourly housekeeping of the dashboard accounts (`accounts.prune`, at minute 29 UTC, on one
 * instance), a bounded batch at a time: the mailed and printed links (`auth_tokens`) past their
 * expiry, used or not, which nothing can use any more (a sign-up's carries a password hash); and
 * the accounts an open sign-up made that never confirmed their address and no longer can, no
 * link of theirs being live. A used link stays until its expiry like an unused one (a second use
 * is refused either way, its row marked used or gone): one rule, and a record of when it was
 * used for the link's lifetime at most. Such an account has no workspace, no membership and no
 * session (it gets them only once confirmed: sign-up.ts, address-claim.ts), so nothing goes with
 * it, and one found in a workspace all the same is kept; an invitation pending for its address
 * holds the address, not the account, and its acceptance makes a new one.
 */
import type { Logger } from "pino";
import { cron, MINUTE, type JobDefinition } from "../jobs/job-definition.ts";
import { inBatches } from "../store/in-batches.ts";
import type { Store } from "../store/store.ts";

const BATCH = 500;

export async function pruneAccounts(
  store: Store,
  now: number,
  batch = BATCH,
): Promise<{ tokens: number; users: number }> {
  return {
    tokens: await inBatches((limit) => store.accounts.deleteExpiredTokens(now, limit), batch),
    users: await inBatches((limit) => store.accounts.deleteUnprovable(now, limit), batch),
  };
}

export const accountsPruneJob: JobDefinition<{ store: Store; logger: Logger }> = {
  name: "accounts.prune",
  schedule: cron("29 * * * *", "UTC"),
  concurrency: 1,
  lockLifetimeMs: 10 * MINUTE,
  run: async (parts) => {
    const removed = await pruneAccounts(parts.store, Date.now());
    if (removed.tokens + removed.users > 0) {
      parts.logger.info(removed, "accounts pruned: expired links, accounts never confirmed");
    }
    return removed;
  },
};
