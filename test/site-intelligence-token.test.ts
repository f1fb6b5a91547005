/**
 * What a voice session learns from the latest done crawl, over POST /v1/:siteId/token against a
 * stand-in of OpenAI's client-secret endpoint: the instructions list the crawled pages, and
 * scroll_to takes the section ids of the page the visitor is on first (matched however its URL
 * is written), then the other pages' once each. Without a crawl scroll_to takes any id, as before.
 */
import crypto from "node:crypto";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import type { CrawledPage } from "../core/intelligence/crawler/crawl-types.ts";
import { finishedCrawl } from "./helpers/crawl-rows.ts";
import { startOpenAiStandin, type OpenAiStandin } from "./helpers/openai-standin.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const DOMAIN = "corner-bakery.example";
const ORIGIN = `https://${DOMAIN}`;

const PAGES: CrawledPage[] = [
  {
    url: `${ORIGIN}/`,
    title: "Corner Bakery",
    description: "Bread",
    sectionIds: ["hero", "hours"],
  },
  {
    url: `${ORIGIN}/cakes`,
    title: "Cakes",
    description: "Cakes to order",
    sectionIds: ["chocolate", "lemon", "hours"],
  },
  { url: `${ORIGIN}/contact`, title: "Contact", description: null, sectionIds: ["map"] },
];

interface SentSession {
  session: {
    instructions: string;
    tools: { name: string; parameters: { properties: Record<string, { enum?: string[] }> } }[];
  };
}

describe("a voice session from the latest crawl", function () {
  this.timeout(30_000);
  let database: TestDatabase | undefined;
  let openai: OpenAiStandin;
  let service: TestService;
  let site: string;

  /** The session the token endpoint asked OpenAI for, for a visitor on `pageUrl`. */
  async function sessionFor(pageUrl: string): Promise<SentSession["session"]> {
    const sent = openai.nextRequest();
    await request(service.server)
      .post(`/v1/${site}/token`)
      .set("Origin", ORIGIN)
      .send({ page_url: pageUrl })
      .expect(200);
    return ((await sent).body as SentSession).session;
  }
  const scrollIds = (session: SentSession["session"]) =>
    session.tools.find((t) => t.name === "scroll_to")!.parameters.properties.section_id!.enum;

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    openai = await startOpenAiStandin();
    service = await startTestService(database.url, {
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
      // Crawl rows are the tests' own (crawl-rows.ts): no job runs a crawl under them.
      SITEVOICE_JOBS: "off",
    });
  });
  beforeEach(async () => {
    const workspaceId = await service.workspace();
    site = `bakery-${crypto.randomBytes(4).toString("hex")}`;
    await service.sites.create(operatorPrincipal(workspaceId, "test"), {
      site_id: site,
      business_name: "Corner Bakery",
      business_description: "Bread and cakes",
      domain: DOMAIN,
    });
  });
  after(async () => {
    await service?.stop();
    await openai?.close();
    await database?.drop();
  });

  it("offers scroll_to the visitor's page's ids first, then the other pages', once each", async () => {
    await finishedCrawl(service.store, site, { domain: DOMAIN, pages: PAGES });
    // The same page written with a trailing slash, a query and a fragment.
    const session = await sessionFor(`${ORIGIN}/cakes/?utm_source=x#top`);
    expect(scrollIds(session)).to.deep.equal(["chocolate", "lemon", "hours", "hero", "map"]);
    expect(scrollIds(await sessionFor(`${ORIGIN}/contact`))).to.deep.equal([
      "map",
      "hero",
      "hours",
      "chocolate",
      "lemon",
    ]);
    // A page the crawl does not know: every page's ids, in crawl order.
    expect(scrollIds(await sessionFor(`${ORIGIN}/new-page`))).to.deep.equal([
      "hero",
      "hours",
      "chocolate",
      "lemon",
      "map",
    ]);
  });

  it("lists the crawled pages in the instructions", async () => {
    await finishedCrawl(service.store, site, { domain: DOMAIN, pages: PAGES });
    const { instructions } = await sessionFor(`${ORIGIN}/`);
    const pages = instructions.slice(instructions.indexOf("\n## Pages\n"));
    expect(pages).to.include("\n- Corner Bakery (/): Bread\n");
    expect(pages).to.include("\n- Cakes (/cakes): Cakes to order\n");
    expect(pages).to.include("\n- Contact (/contact)\n");
  });

  it("without a crawl, lists no pages and lets scroll_to take any id", async () => {
    const session = await sessionFor(`${ORIGIN}/cakes`);
    expect(session.instructions).to.not.include("## Pages");
    expect(scrollIds(session)).to.equal(undefined);
  });

  it("offers no search_site, and says nothing of it, to a site whose pages hold no knowledge", async () => {
    await finishedCrawl(service.store, site, { domain: DOMAIN, pages: PAGES });
    const session = await sessionFor(`${ORIGIN}/`);
    expect(session.tools.map((t) => t.name)).to.deep.equal(["scroll_to"]);
    expect(session.instructions).to.not.include("search_site");
  });
});
