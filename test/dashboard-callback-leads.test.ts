/**
 * Callback requests on the dashboard's leads page: marked as such, with the visitor's reason and
 * the conversation so far in a disclosure, every word escaped; a lead that is not a callback shows
 * neither.
 */
import { expect } from "chai";
import request from "supertest";
import { captureLead, newSite, signUp } from "./helpers/dashboard-leads.ts";
import {
  createTestDatabase,
  databaseTargets,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const AT = "2026-11-21T10:04:05.123Z";

function rowOf(html: string, leadId: string): string {
  const start = html.indexOf(`<tr id="lead-${leadId}"`);
  expect(start, `a row for ${leadId}`).to.be.greaterThan(-1);
  return html.slice(start, html.indexOf("</tr>", start));
}

describe("callback requests on the dashboard's leads page", function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let service: TestService;
  let html: string;
  let callback: { id: string };
  let plain: { id: string };

  before(async () => {
    database = (await createTestDatabase(sqlite))!;
    service = await startTestService(database.url, { SITEVOICE_SIGNUP: "open" });
    const { cookie, workspaceId } = await signUp(service, "Acme");
    const shop = await newSite(service, workspaceId, "Shop");
    callback = await captureLead(service, workspaceId, shop, {
      source: "callback",
      name: "Ana Silva",
      phone: "+1 503 555 0100",
      reason: "Wants to talk about a refund",
      turns: [
        { role: "visitor", text: "Can I talk to <b>a person</b>?", at: AT },
        { role: "function", name: "search_site", at: AT },
        { role: "assistant", text: "I can ask someone to call you.", at: AT },
      ],
    });
    plain = await captureLead(service, workspaceId, shop, { email: "bo@example.com" });
    const res = await request(service.server)
      .get(`/dashboard/leads?workspace_id=${workspaceId}`)
      .set("Cookie", cookie)
      .expect(200);
    html = res.text;
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("marks a callback request and shows its reason", () => {
    const row = rowOf(html, callback.id);
    expect(row).to.contain('class="lead-source">Callback</span>');
    expect(row).to.contain("Wants to talk about a refund");
  });

  it("shows the conversation so far in a disclosure, each turn with who spoke", () => {
    const row = rowOf(html, callback.id);
    expect(row).to.match(/<details class="turns">\s*<summary>Conversation so far \(3 turns\)/);
    expect(row).to.contain("Visitor:").and.contain("Assistant: I can ask someone to call you.");
    expect(row).to.contain("Looked up: search_site");
  });

  it("escapes the visitor's words", () => {
    expect(rowOf(html, callback.id)).to.contain("&lt;b&gt;a person&lt;/b&gt;");
  });

  it("shows neither mark nor conversation for a lead that is not a callback", () => {
    const row = rowOf(html, plain.id);
    expect(row).to.not.contain("lead-source").and.not.contain("<details");
  });
});
