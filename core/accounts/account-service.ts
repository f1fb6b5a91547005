/**
 * Dashboard accounts: sign-up (a user and the workspace they own, once the mailed link proves
 * the address: sign-up.ts), sign-in by password or by a magic link, sessions and sign-out. An
 * account whose address is not proved signs in by no means. Passwords go through the auth
 * plugin's hasher (auth-local: Argon2id). A wrong email and a wrong password are the same 401,
 * and take as long: an unknown email is checked against a dummy hash. Magic-link tokens are stored as their SHA-256 only,
 * single use, valid 15 minutes, and mailed; a request for an unknown email mails nothing and
 * answers the same. Mails go out after the answer (AfterAnswer), so a slow relay neither delays
 * it nor tells which addresses have an account.
 */
import crypto from "node:crypto";
import type { Logger } from "pino";
import { errors } from "../errors.ts";
import type { PasswordHasher } from "../host/plugin.ts";
import type { Mailer } from "../mail/mailer.ts";
import type { KeyRing } from "../security/secret-box.ts";
import { hashToken } from "../security/token-hash.ts";
import { newId } from "../store/ids.ts";
import { AfterAnswer } from "../util/after-answer.ts";
import type { MembershipRow, Role, UserRow } from "../store/repos/accounts-repo.ts";
import type { Store } from "../store/store.ts";
import { isProved } from "./address-claim.ts";
import { newLinkToken } from "./link-token.ts";
import { SESSION_TTL_MS, SessionTokens } from "./session-tokens.ts";
import { confirmSignUp, signUp } from "./sign-up.ts";
import { acceptInvitation, invite, setupOwner, type PeopleParts } from "./workspace-people.ts";

export const MAGIC_LINK_TTL_MS = 15 * 60_000;
export { INVITATION_TTL_MS, issueSetupLink, SETUP_LINK_TTL_MS } from "./workspace-people.ts";
export { SIGNUP_CONFIRMATION_TTL_MS } from "./sign-up.ts";
export interface AccountParts {
  store: Store;
  ring: KeyRing;
  /** The auth plugin's hasher; undefined when no plugin gives one (sign-in is then refused). */
  passwords: PasswordHasher | undefined;
  mailer: Mailer;
  logger: Logger;
  /** Where the dashboard lives (PUBLIC_BASE_URL). */
  publicBaseUrl: string;
  signup: "open" | "invite";
  now?: () => number;
}

/** What a signed-in answer carries. */
export interface SignedIn {
  user: { id: string; email: string; created_at: string };
  workspaces: { id: string; name: string; role: string }[];
  /** The cookie's JWT. */
  token: string;
  expiresAt: number;
}

export class AccountService {
  private readonly now: () => number;
  private readonly tokens: SessionTokens;
  private dummyHash: Promise<string> | undefined;
  private readonly people: PeopleParts;
  private readonly afterAnswer: AfterAnswer;

  constructor(private readonly parts: AccountParts) {
    this.now = parts.now ?? Date.now;
    this.tokens = new SessionTokens(parts.ring);
    this.afterAnswer = new AfterAnswer(parts.logger);
    this.people = {
      ...parts,
      hasher: () => this.hasher(),
      now: () => this.now(),
      later: (failed, context, work) => this.afterAnswer.run(failed, context, work),
    };
  }

  /** Resolves once the mails started so far are sent or failed: a stop waits for it. */
  settled(): Promise<void> {
    return this.afterAnswer.settled();
  }

  /**
   * POST /v1/auth/signup (sign-up.ts): 403 unless sign-up is open; then the same answer for every
   * address, `user` holding only the address given; an account counts once the mailed link
   * proves its address, and has no session before.
   */
  signup(body: { email: string; password: string; workspace_name?: string }) {
    if (this.parts.signup !== "open") {
      throw errors.forbidden("Sign-up is by invitation on this service", { reason: "invite_only" });
    }
    return { user: signUp(this.people, body), verification: "sent" as const };
  }

  /**
   * POST /v1/auth/signin: the same 401 for an unknown email, a wrong password and an account
   * whose address is not proved yet.
   */
  async signin(body: { email: string; password: string }): Promise<SignedIn> {
    const user = await this.parts.store.accounts.userByEmail(body.email);
    const hasher = this.hasher();
    const stored = user?.password_hash ?? (await this.dummy());
    const matches = await hasher.verify(stored, body.password);
    if (user === undefined || !isProved(user) || user.password_hash === null || !matches) {
      throw errors.unauthorized("Wrong email or password");
    }
    return this.startSession(user);
  }

  /**
   * POST /v1/auth/magic-link: mails a single-use link to an account's email, once its address is
   * proved; nothing otherwise.
   * Everything that depends on the address (finding it, the token, the mail) runs after the
   * answer, which is therefore the same, as soon, for every address.
   */
  magicLink(email: string): void {
    this.afterAnswer.run("magic link not mailed", {}, () => this.mailMagicLink(email));
  }

  private async mailMagicLink(email: string): Promise<void> {
    const user = await this.parts.store.accounts.userByEmail(email);
    if (user === undefined || !isProved(user)) return;
    const { token, hash } = newLinkToken("ml");
    const at = this.now();
    await this.parts.store.accounts.insertToken({
      token_hash: hash,
      kind: "magic_link",
      user_id: user.id,
      workspace_id: null,
      email: null,
      role: null,
      created_at: at,
      expires_at: at + MAGIC_LINK_TTL_MS,
      used_at: null,
    });
    // A fragment, so the token reaches neither a server log nor a mail scanner's GET: the page
    // posts it to /v1/auth/verify.
    const link = `${this.parts.publicBaseUrl}/dashboard/verify#token=${token}`;
    const sent = this.parts.mailer.send({
      to: user.email,
      subject: "Your Sitevoice sign-in link",
      text: [
        "Open this link within 15 minutes to sign in to Sitevoice. It works once.",
        "",
        link,
        "",
        "If you did not ask for it, ignore this mail.",
      ].join("\n"),
    });
    await sent.catch((error: unknown) =>
      this.parts.logger.error({ err: error, user_id: user.id }, "magic link not mailed"),
    );
  }

  /**
   * POST /v1/auth/verify: a mailed link's token, once: a sign-up's (`su_`, sign-up.ts) within 24
   * hours, a magic link's within 15 minutes; else 401 invalid_token.
   */
  async verify(token: string): Promise<SignedIn> {
    if (token.startsWith("su_")) return this.startSession(await confirmSignUp(this.people, token));
    const used = await this.parts.store.accounts.useToken(
      hashToken(token),
      "magic_link",
      this.now(),
    );
    const user =
      used?.user_id == null ? undefined : await this.parts.store.accounts.user(used.user_id);
    if (user === undefined || !isProved(user)) throw errors.invalidToken();
    return this.startSession(user);
  }

  /** POST /v1/auth/setup (workspace-people.ts), then signed in. */
  async setup(body: { token: string; email: string; password: string }): Promise<SignedIn> {
    return this.startSession(await setupOwner(this.people, body));
  }

  /** POST /v1/workspace/invitations (workspace-people.ts). */
  invite(
    inviter: { id: string; email: string },
    workspaceId: string,
    body: { email: string; role: Role },
  ): Promise<{ email: string; role: Role; expires_at: string }> {
    return invite(this.people, inviter, workspaceId, body);
  }

  /** POST /v1/auth/accept (workspace-people.ts), then signed in. */
  async accept(body: { token: string; password?: string }): Promise<SignedIn> {
    return this.startSession(await acceptInvitation(this.people, body));
  }

  /** GET /v1/workspace/members. */
  async members(workspaceId: string) {
    return (await this.parts.store.accounts.members(workspaceId)).map((m) => ({
      user_id: m.user_id,
      email: m.email,
      role: m.role,
      joined_at: new Date(Number(m.created_at)).toISOString(),
    }));
  }

  /** The signed-in user a cookie's JWT names, while its session stands. */
  async session(token: string | undefined) {
    if (token === undefined || token === "") return undefined;
    const now = this.now();
    const named = await this.tokens.read(token, now);
    if (named === undefined) return undefined;
    const session = await this.parts.store.accounts.session(named.sessionId);
    if (
      session === undefined ||
      session.user_id !== named.userId ||
      session.revoked_at !== null ||
      Number(session.expires_at) <= now
    ) {
      return undefined;
    }
    const user = await this.parts.store.accounts.user(session.user_id);
    if (user === undefined || !isProved(user)) return undefined;
    return {
      sessionId: session.id,
      user: userView(user),
      workspaces: await this.workspacesOf(user.id),
    };
  }

  /** POST /v1/auth/signout: the session ends now, wherever its cookie is. */
  async signout(sessionId: string): Promise<void> {
    await this.parts.store.accounts.revokeSession(sessionId, this.now());
  }

  private async startSession(user: UserRow): Promise<SignedIn> {
    const at = this.now();
    const expiresAt = at + SESSION_TTL_MS;
    const id = newId("dss");
    await this.parts.store.accounts.insertSession({
      id,
      user_id: user.id,
      created_at: at,
      expires_at: expiresAt,
      revoked_at: null,
    });
    return {
      user: userView(user),
      workspaces: await this.workspacesOf(user.id),
      token: await this.tokens.sign(id, user.id, at, expiresAt),
      expiresAt,
    };
  }

  private async workspacesOf(userId: string) {
    const rows: MembershipRow[] = await this.parts.store.accounts.memberships(userId);
    return rows.map((row) => ({ id: row.workspace_id, name: row.name, role: row.role }));
  }

  private hasher(): PasswordHasher {
    if (this.parts.passwords === undefined) {
      throw errors.serviceUnavailable("No auth plugin with passwords is installed");
    }
    return this.parts.passwords;
  }

  /** A hash of nothing anyone knows, so an unknown email costs what a wrong password costs. */
  private dummy(): Promise<string> {
    this.dummyHash ??= this.hasher().hash(crypto.randomBytes(16).toString("hex"));
    return this.dummyHash;
  }
}

const userView = (user: UserRow) => ({
  id: user.id,
  email: user.email,
  created_at: new Date(Number(user.created_at)).toISOString(),
});
