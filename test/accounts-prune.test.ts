/**
 * The hourly `accounts.prune` job, run as the runner runs it, on SQLite, PostgreSQL and MariaDB:
 * the links (auth_tokens) past their expiry go, used or not, with the password hashes sign-up
 * links carry; a link not expired stays, used or not. An account that never confirmed its address
 * goes once no link of its is live (an invitation pending for its address is the invitee's to
 * accept, with a password of their own), unless it belongs to a workspace; one with a live link
 * stays; a confirmed account is never touched. More than a batch goes in one run.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import { pruneAccounts } from "../core/accounts/accounts-prune-job.ts";
import { newLinkToken } from "../core/accounts/link-token.ts";
import { jobDefinitions } from "../core/jobs/job-definitions.ts";
import { newId } from "../core/store/ids.ts";
import type { AuthTokenRow, UserRow } from "../core/store/repos/accounts-repo.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const HOUR = 3_600_000;
const PASSWORD = "correct horse battery";
const address = (who: string) => `${who}-${crypto.randomBytes(4).toString("hex")}@acme.example`;

for (const target of databaseTargets) {
  describe(`the accounts.prune job, on ${target.label}`, function () {
    this.timeout(30_000);
    let database: TestDatabase | undefined;
    let service: TestService;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      // The runner off: each test runs the job itself, as the runner would.
      service = await startTestService(database.url, { SITEVOICE_JOBS: "off" });
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    const knex = () => service.store.db.knex;
    /** The job of that name in the one list, run once as the runner runs it. */
    const runPrune = async () => {
      const job = jobDefinitions.find((definition) => definition.name === "accounts.prune");
      expect(job, "accounts.prune in core/jobs/job-definitions.ts").to.not.equal(undefined);
      await job!.run(service, null);
    };
    /** A user made two days ago, its address confirmed or not. */
    const user = async (confirmed: boolean): Promise<UserRow> => {
      const at = Date.now() - 48 * HOUR;
      const row = {
        id: newId("usr"),
        email: address("someone"),
        password_hash: null,
        created_at: at,
        verified_at: confirmed ? at : null,
      };
      await service.store.accounts.insertUser(row);
      return row;
    };
    /** A link expiring `expiresIn` ms from now (negative: expired), with `fields`: its hash. */
    const link = async (expiresIn: number, fields: Partial<AuthTokenRow>) => {
      const { hash } = newLinkToken("ml");
      await service.store.accounts.insertToken({
        token_hash: hash,
        kind: "magic_link",
        user_id: null,
        workspace_id: null,
        email: null,
        role: null,
        created_at: Date.now() - 25 * HOUR,
        expires_at: Date.now() + expiresIn,
        used_at: null,
        ...fields,
      });
      return hash;
    };
    const linkStored = async (hash: string) =>
      (await knex()("auth_tokens").where({ token_hash: hash }).first()) !== undefined;
    const userStored = async (id: string) => (await service.store.accounts.user(id)) !== undefined;

    it("deletes a sign-up's link past its expiry, with the password hash it carries", async () => {
      const stranger = await user(false);
      const hash = await link(-HOUR, {
        kind: "signup",
        user_id: stranger.id,
        password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
        workspace_name: "Acme",
      });
      await runPrune();
      expect(await linkStored(hash)).to.equal(false);
    });

    it("deletes a used link once past its expiry", async () => {
      const known = await user(true);
      const hash = await link(-1, { user_id: known.id, used_at: Date.now() - HOUR });
      await runPrune();
      expect(await linkStored(hash)).to.equal(false);
    });

    it("keeps a used link until its expiry", async () => {
      const known = await user(true);
      const hash = await link(10 * 60_000, { user_id: known.id, used_at: Date.now() - 60_000 });
      await runPrune();
      expect(await linkStored(hash)).to.equal(true);
    });

    it("keeps a link not used yet until its expiry", async () => {
      const workspace = await service.workspace();
      const hash = await link(HOUR, {
        kind: "invitation",
        workspace_id: workspace,
        email: address("invitee"),
        role: "member",
      });
      await runPrune();
      expect(await linkStored(hash)).to.equal(true);
    });

    it("deletes an account that never confirmed its address once its sign-up links expired", async () => {
      const stranger = await user(false);
      await link(-HOUR, { kind: "signup", user_id: stranger.id, password_hash: "x" });
      await link(-1, { kind: "signup", user_id: stranger.id, password_hash: "y" });
      await runPrune();
      expect(await userStored(stranger.id)).to.equal(false);
    });

    it("keeps an account that never confirmed its address while a sign-up link of it is live", async () => {
      const pending = await user(false);
      await link(-HOUR, { kind: "signup", user_id: pending.id, password_hash: "x" });
      const live = await link(HOUR, { kind: "signup", user_id: pending.id, password_hash: "y" });
      await runPrune();
      expect([await userStored(pending.id), await linkStored(live)]).to.deep.equal([true, true]);
    });

    it("keeps an account that never confirmed its address but belongs to a workspace", async () => {
      const member = await user(false);
      await service.store.accounts.addMember(await service.workspace(), member.id, "member", 0);
      await runPrune();
      expect(await userStored(member.id)).to.equal(true);
    });

    it("never deletes a confirmed account, even with no link at all", async () => {
      const known = await user(true);
      const expired = await user(true);
      await link(-HOUR, { user_id: expired.id });
      await runPrune();
      expect([await userStored(known.id), await userStored(expired.id)]).to.deep.equal([
        true,
        true,
      ]);
    });

    it("deletes more links and accounts than a batch holds in one run, a batch at a time", async () => {
      const strangers = [await user(false), await user(false), await user(false)];
      const links = await Promise.all(
        [-5, -4, -3, -2, -1].map((hoursAgo) => link(hoursAgo * HOUR, {})),
      );
      await pruneAccounts(service.store, Date.now(), 2);
      const left = [
        ...(await Promise.all(strangers.map((stranger) => userStored(stranger.id)))),
        ...(await Promise.all(links.map(linkStored))),
      ];
      expect(left).to.deep.equal(new Array(8).fill(false));
    });

    it("deletes an unconfirmed account invited since, whose invitee then accepts with a password of their own", async () => {
      const stranger = await user(false);
      await link(-HOUR, { kind: "signup", user_id: stranger.id, password_hash: "x" });
      const workspace = await service.workspace();
      const invitation = newLinkToken("inv");
      await link(HOUR, {
        token_hash: invitation.hash,
        kind: "invitation",
        workspace_id: workspace,
        email: stranger.email,
        role: "member",
      });
      await runPrune();
      expect(await userStored(stranger.id)).to.equal(false);
      const accepted = await service.accounts.accept({
        token: invitation.token,
        password: PASSWORD,
      });
      expect(accepted.user.email).to.equal(stranger.email);
      expect(accepted.workspaces.map((w) => [w.id, w.role])).to.deep.equal([[workspace, "member"]]);
      const account = await service.store.accounts.userByEmail(stranger.email);
      expect(account!.verified_at).to.not.equal(null);
    });
  });
}
