/**
 * The dashboard's banner when the voice provider reports it can make no session (the built-in
 * OpenAI provider without OPENAI_API_KEY): on the workspaces page, a workspace's sites and a
 * site's page; none of it when the key is set.
 */
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { signUp, type Member } from "./helpers/session-cookie.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const BANNER = "Voice calls are not available";
const SITE = "banner-shop";

for (const [label, env] of [
  ["without OPENAI_API_KEY", {}],
  ["with OPENAI_API_KEY", { OPENAI_API_KEY: "sk-not-checked-by-the-dashboard" }],
] as const) {
  describe(`the dashboard ${label}`, function () {
    this.timeout(30_000);
    let database: TestDatabase;
    let service: TestService;
    let member: Member;
    const shown = label.startsWith("without");

    /** A dashboard page of the member's, as HTML. */
    const page = async (path: string) =>
      (await request(service.server).get(path).set("Cookie", member.cookie).expect(200)).text;
    const inWorkspace = (path: string) => `${path}?workspace_id=${member.workspaceId}`;

    before(async () => {
      database = (await createTestDatabase(sqlite))!;
      service = await startTestService(database.url, {
        SITEVOICE_SIGNUP: "open",
        SITEVOICE_JOBS: "off",
        ...env,
      });
      member = await signUp(service);
      await service.sites.create(operatorPrincipal(member.workspaceId, "test"), {
        site_id: SITE,
        business_name: "Banner Shop",
        business_description: "",
        domain: "banner-shop.example",
      });
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    const expectation = shown ? "shows" : "does not show";
    it(`${expectation} the voice banner on the workspaces page`, async () => {
      expect((await page("/dashboard")).includes(BANNER)).to.equal(shown);
    });

    it(`${expectation} the voice banner on the sites page`, async () => {
      expect((await page(inWorkspace("/dashboard/sites"))).includes(BANNER)).to.equal(shown);
    });

    it(`${expectation} the voice banner on a site's page`, async () => {
      expect((await page(inWorkspace(`/dashboard/sites/${SITE}`))).includes(BANNER)).to.equal(
        shown,
      );
    });

    if (shown) {
      it("names the setting the operator must set", async () => {
        expect(await page("/dashboard")).to.match(
          /not available: no OpenAI API key is configured \(set OPENAI_API_KEY\)/,
        );
      });
    }
  });
}
