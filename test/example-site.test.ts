/**
 * The demo's example websites (SITEVOICE_DEMO): the example restaurant's pages under
 * `/demo/luigis-trattoria`, and the robots.txt and sitemap that let a crawl of this service's own
 * address find them; none of it without the demo.
 */
import { expect } from "chai";
import request from "supertest";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

describe("the demo's example websites", function () {
  this.timeout(60_000);
  let database: TestDatabase | undefined;
  let demo: TestService;
  let plain: TestService;

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    demo = await startTestService(database.url, { SITEVOICE_DEMO: "on" });
    plain = await startTestService(database.url, { SITEVOICE_DEMO: "off" });
  });
  after(async () => {
    await demo?.stop();
    await plain?.stop();
    await database?.drop();
  });

  it("serves the restaurant's home page at /demo/luigis-trattoria, with the widget", async () => {
    const res = await request(demo.server).get("/demo/luigis-trattoria").expect(200);
    expect(res.type).to.equal("text/html");
    expect(res.text).to.include("<title>Luigi's Trattoria</title>");
    expect(res.text).to.include("<h2>Find us</h2>");
    expect(res.text).to.include('<script src="/widget.js" data-site-id="luigis-trattoria" async>');
  });

  it("serves its other pages by name, without .html", async () => {
    const res = await request(demo.server).get("/demo/luigis-trattoria/dietary").expect(200);
    expect(res.text).to.include('<section id="gluten-free">');
  });

  it("serves its stylesheet", async () => {
    const res = await request(demo.server).get("/demo/luigis-trattoria/site.css").expect(200);
    expect(res.type).to.equal("text/css");
  });

  it("answers 304 to a conditional request for an unchanged page", async () => {
    const first = await request(demo.server).get("/demo/luigis-trattoria/visit").expect(200);
    expect(first.headers.etag).to.be.a("string");
    expect(first.headers["last-modified"]).to.be.a("string");
    await request(demo.server)
      .get("/demo/luigis-trattoria/visit")
      .set("If-None-Match", first.headers.etag as string)
      .expect(304);
  });

  it("answers 404 for a page the website does not have", async () => {
    await request(demo.server).get("/demo/luigis-trattoria/nowhere").expect(404);
  });

  it("serves nothing outside the website's folder", async () => {
    await request(demo.server)
      .get("/demo/luigis-trattoria/..%2F..%2F..%2Fpackage.json")
      .expect(404);
    await request(demo.server).get("/demo/..%2Fapi%2Fluigis-trattoria%2Fmenu.json").expect(404);
  });

  it("leaves any other site id to the plain demo page", async () => {
    const res = await request(demo.server).get("/demo/no-such-site").expect(404);
    expect(res.text).to.include('<h1>No site "no-such-site"</h1>');
  });

  it("answers a robots.txt that keeps crawlers out of the API and names the sitemap", async () => {
    const res = await request(demo.server).get("/robots.txt").expect(200);
    expect(res.type).to.equal("text/plain");
    expect(res.text).to.include("Disallow: /v1/\n");
    expect(res.text).to.include("Disallow: /dashboard\n");
    const host = new URL(demo.url).host;
    expect(res.text).to.include(`Sitemap: http://${host}/demo/sitemap.xml\n`);
  });

  it("lists every page of the example websites in the sitemap", async () => {
    const res = await request(demo.server).get("/demo/sitemap.xml").expect(200);
    const host = new URL(demo.url).host;
    const locs = [...res.text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(locs).to.deep.equal([
      `http://${host}/demo/luigis-trattoria`,
      `http://${host}/demo/luigis-trattoria/dietary`,
      `http://${host}/demo/luigis-trattoria/private-dining`,
      `http://${host}/demo/luigis-trattoria/visit`,
    ]);
  });

  it("serves none of it without the demo", async () => {
    await request(plain.server).get("/robots.txt").expect(404);
    await request(plain.server).get("/demo/sitemap.xml").expect(404);
    await request(plain.server).get("/demo/luigis-trattoria/visit").expect(404);
  });
});
