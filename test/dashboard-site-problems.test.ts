/**
 * The dashboard's site forms refused for several problems at once, over HTTP as htmx drives them:
 * each problem is drawn once, in its own words, in the slot under the field it is about (an htmx
 * out-of-band swap), every other slot drawn empty, and the answer area only counts them. The
 * settings form is sent a bad voice, a bad time zone and a domain another site holds; the new-site
 * form no name, a reserved site id and that domain.
 */
import { expect } from "chai";
import request from "supertest";
import { dashboardPrincipal } from "../core/auth/principal.ts";
import { decode, formValues, validateMessage } from "./helpers/dashboard-forms.ts";
import { signUp } from "./helpers/session-cookie.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const SITE = "bright-smiles";
const TAKEN = "Domain held.example already belongs to site 'holder-site' of this workspace";

/** The text of the problem slot of the form's control `name` in `html`. */
const slotOf = (html: string, name: string) =>
  new RegExp(`<ul[^>]* id="problem-${name}"[^>]*>([\\s\\S]*?)</ul>`).exec(html)?.[1] ?? "";
/** The text of the answer's alert. */
const alertOf = (html: string) => /<p class="error" role="alert"[^>]*>([^<]*)<\/p>/.exec(html)?.[1];
/** How often `text` appears in `html`. */
const times = (html: string, text: string) => html.split(text).length - 1;
/** A field's name written twice in a row, tags aside ("timezone timezone must be…"). */
const DOUBLED = /\b(timezone|voice|domain|business_name|site_id)\s+\1\b/i;

describe("the dashboard's site forms with several problems", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;
  let cookie: string;
  let workspaceId: string;

  const act = (url: string, form: Record<string, string>) =>
    request(service.server)
      .post(url)
      .set({ Cookie: cookie, "Sec-Fetch-Site": "same-origin", "HX-Request": "true" })
      .type("form")
      .send(form);
  const page = (url: string) => request(service.server).get(url).set("Cookie", cookie);
  const inWs = (url: string) => `${url}?workspace_id=${workspaceId}`;

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, { SITEVOICE_SIGNUP: "open" });
    ({ cookie, workspaceId } = await signUp(service, "Acme agency"));
    // Two sites and a third attempted: more than the free plan of a signed-up workspace allows.
    await service.store.db.knex("workspaces").where({ id: workspaceId }).update({ plan: "pro" });
    const principal = dashboardPrincipal(workspaceId, "test");
    for (const [siteId, domain] of [
      ["holder-site", "held.example"],
      [SITE, "brightsmiles.example"],
    ]) {
      await service.sites.create(principal, {
        site_id: siteId,
        business_name: siteId,
        business_description: "",
        domain,
      });
    }
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  describe("the settings form", () => {
    let answer: string;
    let status: number;
    let messages: Record<"timezone" | "voice" | "domain", string>;

    before(async () => {
      const drawn = await page(inWs(`/dashboard/sites/${SITE}`)).expect(200);
      const res = await act(inWs(`/dashboard/sites/${SITE}`), {
        ...formValues(drawn.text, "settings-title"),
        voice: "bogus",
        timezone: "Mars/Base",
        domain: "held.example",
      });
      status = res.status;
      answer = decode(res.text);
      messages = {
        timezone: await validateMessage(service.rules, "timezone: Mars/Base"),
        voice: await validateMessage(service.rules, "voice: bogus"),
        domain: TAKEN,
      };
    });

    it("is refused 400, as the API refuses the same change", () => {
      expect(status, answer).to.equal(400);
    });

    for (const field of ["timezone", "voice", "domain"] as const) {
      it(`shows the ${field}'s problem once, in the slot under its field`, () => {
        expect(slotOf(answer, field)).to.equal(`<li>${messages[field]}</li>`);
        expect(times(answer, messages[field])).to.equal(1);
      });
    }

    it("says in its alert that nothing was saved, without repeating the problems", () => {
      expect(alertOf(answer)).to.equal(
        "The settings were not saved: 3 problems, each shown beside its field.",
      );
    });

    it("never writes a field's name twice in a row", () => {
      expect(answer.replace(/<[^>]*>/g, " ")).not.to.match(DOUBLED);
    });

    it("draws the slots of the other fields empty, clearing problems fixed since", () => {
      expect(answer).to.match(
        /<ul[^>]* id="problem-business_name" hx-swap-oob="true" hidden><\/ul>/,
      );
    });

    it("has each slot right after its field on the page, which the field names as its description", async () => {
      const site = (await page(inWs(`/dashboard/sites/${SITE}`)).expect(200)).text;
      expect(site).to.match(
        /<input id="f-timezone" name="timezone"[^>]* aria-describedby="problem-timezone" \/>\s*<ul class="field-problem" id="problem-timezone" hidden><\/ul>/,
      );
    });

    it("saves nothing", async () => {
      expect((await service.store.sites.get(SITE))!.version).to.equal(1);
    });
  });

  describe("the new-site form", () => {
    let answer: string;

    before(async () => {
      const res = await act(inWs("/dashboard/sites"), {
        business_name: "",
        domain: "held.example",
        site_id: "sites",
        industry: "general",
      });
      expect(res.status, res.text).to.equal(400);
      answer = decode(res.text);
    });

    it("shows the missing name, the reserved id and the taken domain each under its field", () => {
      expect(slotOf(answer, "business_name")).to.equal("<li>business_name is required</li>");
      expect(slotOf(answer, "site_id")).to.match(/^<li>site_id [^<]+<\/li>$/);
      expect(slotOf(answer, "domain")).to.equal(`<li>${TAKEN}</li>`);
    });

    it("counts them in its alert", () => {
      expect(alertOf(answer)).to.equal(
        "The site was not added: 3 problems, each shown beside its field.",
      );
    });

    it("never writes a field's name twice in a row", () => {
      expect(answer.replace(/<[^>]*>/g, " ")).not.to.match(DOUBLED);
    });

    it("adds no site", async () => {
      expect(await service.store.sites.list(workspaceId, { limit: 10 })).to.have.length(2);
    });
  });
});
