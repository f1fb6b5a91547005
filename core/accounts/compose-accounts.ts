/**
 * The parts that deal with people rather than sites: dashboard accounts and visitors' data
 * requests, both mailing people and answering with links under PUBLIC_BASE_URL.
 */
import type { Logger } from "pino";
import type { PluginHost } from "../host/plugin-host.ts";
import type { Mailer } from "../mail/mailer.ts";
import type { KeyRing } from "../security/secret-box.ts";
import type { Settings } from "../settings.ts";
import type { SiteService } from "../sites/site-service.ts";
import type { Store } from "../store/store.ts";
import { UserDataService } from "../user-data/user-data-service.ts";
import { AccountService } from "./account-service.ts";

export function composeAccounts(
  parts: { store: Store; ring: KeyRing; sites: SiteService; mailer: Mailer; plugins: PluginHost },
  context: {
    settings: Readonly<Settings>;
    logger: Logger;
    closers: (() => Promise<void> | void)[];
  },
): { userData: UserDataService; accounts: AccountService } {
  const { store, ring, sites, mailer, plugins } = parts;
  const { logger, settings, closers } = context;
  const publicBaseUrl = settings.publicBaseUrl;
  const accounts = new AccountService({
    store,
    ring,
    passwords: plugins.useGlobal(
      "auth",
      (auth) => auth.passwords !== undefined,
      "the dashboard's sign-up and sign-in (passwords)",
    )?.passwords,
    mailer,
    logger,
    publicBaseUrl,
    signup: settings.signup,
  });
  // The mails answered requests left to send: before the mailer and the store close.
  closers.push(() => accounts.settled());
  return {
    userData: new UserDataService({ store, ring, sites, mailer, logger, publicBaseUrl }),
    accounts,
  };
}
