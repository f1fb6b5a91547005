/**
 * What an invitation mail carries, read with mailparser off a real SMTP server, on SQLite,
 * PostgreSQL and MariaDB: a subject of a fixed sentence and the inviter's address only; a body
 * that quotes the workspace's name as plain text, with no link but the invitation's own; and a
 * name stored before names were checked, holding a web address, left out. Sign-up refuses a
 * workspace name holding a link, creating nothing, and names one it is not given after the first
 * label of the address's domain (not the domain, a link in a mail).
 */
import crypto from "node:crypto";
import { expect } from "chai";
import type { ParsedMail } from "mailparser";
import { newId } from "../core/store/ids.ts";
import { mailedToken, mailsTo } from "./helpers/mailed-links.ts";
import { becomeOwner, dashboardPost } from "./helpers/session-cookie.ts";
import { smtpServer } from "./helpers/smtp-server.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const PASSWORD = "correct horse battery";
const address = (who: string) => `${who}-${crypto.randomBytes(4).toString("hex")}@acme.example`;

for (const target of databaseTargets) {
  describe(`invitation mails, on ${target.label}`, function () {
    this.timeout(60_000);
    let database: TestDatabase | undefined;
    let smtp: Awaited<ReturnType<typeof smtpServer>>;
    let service: TestService;
    const owner = address("owner");
    let cookie: string;

    const post = (path: string, body: object, withCookie?: string) =>
      dashboardPost(service, path, body, withCookie);

    /** The mail inviting a new address to a workspace of the owner's named `name`. */
    const invitationTo = async (name: string): Promise<ParsedMail> => {
      const workspace = newId("ws");
      await service.store.workspaces.insert({ id: workspace, name, plan: "free", created_at: 1 });
      const ownerId = (await service.store.accounts.userByEmail(owner))!.id;
      await service.store.accounts.addMember(workspace, ownerId, "owner", 1);
      const invitee = address("invitee");
      const sent = await post(
        `/v1/workspace/invitations?workspace_id=${workspace}`,
        { email: invitee, role: "owner" },
        cookie,
      );
      expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
      return (await mailsTo(smtp, invitee, 1))[0]!;
    };

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      smtp = await smtpServer();
      service = await startTestService(database.url, {
        SITEVOICE_SIGNUP: "open",
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        TRUSTED_PROXIES: "loopback",
      });
      ({ cookie } = await becomeOwner(service, owner));
    });
    after(async () => {
      await service?.stop();
      await smtp?.close();
      await database?.drop();
    });

    it("has a subject of a fixed sentence naming the inviter's address, never the workspace", async () => {
      const mail = await invitationTo("Bright Smiles Dental");
      expect(mail.subject).to.equal(`${owner} invited you to a Sitevoice workspace`);
    });

    it("quotes the workspace's name in the body as plain text, with no link but the invitation's", async () => {
      const mail = await invitationTo("Bright Smiles: Dental & Co.");
      expect(mail.html).to.equal(false);
      const text = mail.text ?? "";
      expect(text).to.contain('"Bright Smiles: Dental & Co."');
      expect(text.match(/\S+:\/\/\S+/g)).to.deep.equal([
        text.match(/https?:\/\/\S+\/dashboard\/accept#token=inv_[A-Za-z0-9_-]+/)![0],
      ]);
    });

    it("leaves out a name stored before names were checked that holds a web address", async () => {
      const mail = await invitationTo("Urgent: confirm at www.evil.example");
      expect(mail.subject).to.equal(`${owner} invited you to a Sitevoice workspace`);
      expect(mail.text).to.not.contain("evil");
    });

    it("names a sign-up's workspace, when it names none, after the first label of its domain only", async () => {
      const email = `ana-${crypto.randomBytes(4).toString("hex")}@paypal-help.example`;
      await post("/v1/auth/signup", { email, password: PASSWORD }).expect(202);
      const token = await mailedToken(smtp, email, "/dashboard/confirm");
      const confirmed = await post("/v1/auth/verify", { token }).expect(200);
      expect(confirmed.body.data.workspaces[0].name).to.equal("paypal-help");
    });

    for (const name of ["https://evil.example/login", "www.evil.example", "evil.example/path"]) {
      it(`refuses a sign-up whose workspace name is ${JSON.stringify(name)}, creating nothing`, async () => {
        const email = address("stranger");
        const res = await post("/v1/auth/signup", {
          email,
          password: PASSWORD,
          workspace_name: name,
        });
        expect(res.status).to.equal(400);
        expect(res.body.error.code).to.equal("invalid_request");
        expect(res.body.error.details.field).to.equal("workspace_name");
        expect(await service.store.accounts.userByEmail(email)).to.equal(undefined);
      });
    }
  });
}
