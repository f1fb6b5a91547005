/**
 * A crawled site's knowledge as the agent, the business and the operator read it: the knowledge
 * fixture site (Lindenhof Dental, served for real) crawled through the service's own crawl, then
 * a visitor's question asked through `GET /v1/sites/:id/knowledge`, the agent's signed
 * `POST /v1/:siteId/knowledge`, the voice session's tools, the dashboard's panel and
 * `sitevoice knowledge search`: each finds the passage that answers it, with the page and the
 * section to scroll to, and the log line of a search holds neither the passages' text nor the
 * question's words. On SQLite; the same answers on the other databases are tested with the index.
 */
import crypto from "node:crypto";
import { Writable } from "node:stream";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import { runToEnd } from "./helpers/cli-process.ts";
import { startKnowledgeSite, type KnowledgeSite } from "./helpers/knowledge-site-server.ts";
import { startOpenAiStandin, type OpenAiStandin } from "./helpers/openai-standin.ts";
import { signUp, type Member } from "./helpers/session-cookie.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";
import { newSession, signedPost, type WidgetSession } from "./helpers/widget-session.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const QUESTION = "Are you open on Sundays?";
const MASTER_KEY = crypto.randomBytes(32).toString("base64");

describe("the knowledge of a crawled site", function () {
  this.timeout(60_000);
  let database: TestDatabase | undefined;
  let service: TestService;
  let openai: OpenAiStandin;
  let site: KnowledgeSite;
  let member: Member;
  let siteId: string;
  let readKey: string;
  let session: WidgetSession;
  const logLines: string[] = [];
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });

  const ask = (question = QUESTION, limit = 3) =>
    request(service.server)
      .get(`/v1/sites/${siteId}/knowledge`)
      .query({ q: question, limit })
      .set("Authorization", `Bearer ${readKey}`);

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    openai = await startOpenAiStandin();
    site = await startKnowledgeSite();
    service = await startTestService(
      database.url,
      {
        SITEVOICE_JOBS: "off",
        SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
        SITEVOICE_SIGNUP: "open",
        SITEVOICE_MASTER_KEY: MASTER_KEY,
        OPENAI_API_KEY: openai.apiKey,
        OPENAI_BASE_URL: openai.baseUrl,
        LOG_LEVEL: "info",
      },
      { logs },
    );
    member = await signUp(service);
    siteId = `lindenhof-${crypto.randomBytes(4).toString("hex")}`;
    await service.sites.create(operatorPrincipal(member.workspaceId, "test"), {
      site_id: siteId,
      business_name: "Lindenhof Dental",
      business_description: "A dental practice in Freiburg",
      domain: site.domain,
      language: "en",
    });
    const queued = await service.store.crawls.active(siteId);
    const crawled = await service.crawls.run(queued!.id);
    expect(crawled?.status, JSON.stringify(crawled?.errors)).to.equal("done");
    readKey = await service.key(member.workspaceId, { scopes: ["sites:read"] });
    session = await newSession(service, {
      siteId,
      workspaceId: member.workspaceId,
      origin: site.origin,
    });
  });
  after(async () => {
    await service?.stop();
    await site?.close();
    await openai?.close();
    await database?.drop();
  });

  it("finds the passage that answers a visitor's question, with its page and section", async () => {
    const res = await ask().expect(200);
    const [first] = res.body.data;
    expect(first).to.include({
      url: `${site.origin}/opening-hours`,
      section_id: "weekly-hours",
    });
    expect(first.heading).to.include("Regular hours");
    expect(first.text).to.include("Sunday | Closed");
    expect(first.score).to.be.a("number");
    expect(res.body.meta.took_ms).to.be.a("number");
  });

  it("answers at most the limit asked for", async () => {
    const res = await ask(QUESTION, 1).expect(200);
    expect(res.body.data).to.have.length(1);
  });

  it("answers the agent's signed search with the passages the business gets", async () => {
    const business = await ask().expect(200);
    const agent = await signedPost(service, session, "/knowledge", { query: QUESTION, limit: 3 });
    expect(agent.status, JSON.stringify(agent.body)).to.equal(200);
    expect(agent.body.data).to.deep.equal({ items: business.body.data });
  });

  it("counts what the knowledge holds, in the pages' languages", async () => {
    const res = await request(service.server)
      .get(`/v1/sites/${siteId}/knowledge/stats`)
      .set("Authorization", `Bearer ${readKey}`)
      .expect(200);
    const stats = res.body.data;
    expect(stats.pages).to.be.above(5);
    expect(stats.sections).to.be.above(stats.pages);
    expect(stats.passages).to.be.at.least(stats.sections);
    expect(stats.languages).to.deep.equal(["de", "en"]);
    expect(stats.indexed_at).to.match(/^\d{4}-\d\d-\d\dT/);
  });

  it("logs a search with where it found its passages, never their text nor the question's words", async () => {
    const res = await ask("When do you take your lunch break?").expect(200);
    const id = String(res.headers["x-request-id"]);
    const line = logLines.find((l) => l.includes(id) && l.includes('"knowledge search"'));
    expect(line, logLines.join("\n")).to.be.a("string");
    const logged = JSON.parse(line!);
    expect(logged.found).to.include(`${site.origin}/opening-hours#weekly-hours`);
    expect(logged.query_chars).to.equal("When do you take your lunch break?".length);
    expect(line).to.not.include("lunch");
    for (const hit of res.body.data as { text: string }[]) {
      expect(line).to.not.include(hit.text.slice(0, 40));
    }
  });

  it("offers the voice session search_site, and scroll_to the sections it answers with", async () => {
    const sent = openai.nextRequest();
    await request(service.server)
      .post(`/v1/${siteId}/token`)
      .set("Origin", site.origin)
      .send({ page_url: `${site.origin}/` })
      .expect(200);
    const { session: minted } = (await sent).body as {
      session: {
        instructions: string;
        tools: { name: string; parameters: { properties: Record<string, { enum?: string[] }> } }[];
      };
    };
    expect(minted.tools.map((t) => t.name)).to.deep.equal(["search_site", "scroll_to"]);
    const scrollIds = minted.tools.find((t) => t.name === "scroll_to")!.parameters.properties
      .section_id!.enum;
    expect(scrollIds).to.include("weekly-hours");
    expect(minted.instructions).to.include("search_site");
  });

  it("shows the dashboard the pages with their section counts, and the passages a question finds", async () => {
    const dashboard = (path: string) =>
      request(service.server)
        .get(`${path}${path.includes("?") ? "&" : "?"}workspace_id=${member.workspaceId}`)
        .set({ Cookie: member.cookie, "HX-Request": "true" })
        .expect(200);
    const summary = (await dashboard(`/dashboard/sites/${siteId}/knowledge`)).text;
    expect(summary).to.match(/\d+ pages, \d+ sections, \d+ passages in de, en/);
    expect(summary).to.match(
      new RegExp(`<code>${site.origin}/opening-hours</code></td><td>\\d+</td>`),
    );
    const hits = (
      await dashboard(
        `/dashboard/sites/${siteId}/knowledge/search?q=${encodeURIComponent(QUESTION)}`,
      )
    ).text;
    expect(hits).to.include(`${site.origin}/opening-hours#weekly-hours`);
    expect(hits).to.include("Sunday | Closed");
  });

  it("prints the passage with sitevoice knowledge search, read on the store", async () => {
    const cwd = process.cwd();
    const searched = await runToEnd(
      ["knowledge", "search", siteId, QUESTION, "--limit", "1"],
      cwd,
      {
        DATABASE_URL: database!.url,
        SITEVOICE_MASTER_KEY: MASTER_KEY,
        SITEVOICE_DATA_DIR: service.dataDir,
        SITEVOICE_JOBS: "off",
      },
    );
    expect(searched.code, searched.output).to.equal(0);
    const lines = searched.output.trim().split("\n");
    expect(lines[0]).to.match(/^\d+\.\d\d {2}Opening hours – Lindenhof Dental > .*Regular hours/);
    expect(lines[1]).to.equal(`      ${site.origin}/opening-hours#weekly-hours`);
    // The start of the passage the API answers first.
    const [first] = (await ask(QUESTION, 1).expect(200)).body.data as { text: string }[];
    const start = `      ${first!.text.replace(/\s+/g, " ").slice(0, 100)}`;
    expect(lines[2]!.startsWith(start), `${lines[2]}\n${start}`).to.equal(true);
  });
});
