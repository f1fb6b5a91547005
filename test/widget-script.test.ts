/**
 * `GET /widget.js` and `GET /demo/:siteId` over HTTP, `sitevoice widget info|build`, and the
 * bundle's budget: the served bytes are the ones whose integrity hash the CLI prints, caches get
 * a content ETag and 304s, any origin may load it, and a bundle over 20 KB gzipped is refused.
 */
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { gunzipSync, brotliDecompressSync } from "node:zlib";
import { expect } from "chai";
import request from "supertest";
import { operatorPrincipal } from "../core/auth/principal.ts";
import {
  buildWidget,
  WIDGET_BUDGET_GZIP_BYTES,
  WidgetTooLarge,
} from "../core/widget/widget-bundle.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const run = promisify(execFile);
const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

/** The raw bytes of an answer, whatever supertest would make of them. */
const bytes = (req: request.Test) =>
  req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("end", () => done(null, Buffer.concat(chunks)));
  });

describe("the widget script", function () {
  this.timeout(60_000);
  let database: TestDatabase | undefined;
  let service: TestService;
  let demo: TestService;

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    service = await startTestService(database.url);
    demo = await startTestService(database.url, { SITEVOICE_DEMO: "on" });
  });
  after(async () => {
    await demo?.stop();
    await service?.stop();
    await database?.drop();
  });

  it("serves one file for every site, cacheable, to any origin, with a content ETag", async () => {
    const res = await bytes(
      request(service.server).get("/widget.js").set("Accept-Encoding", "identity"),
    ).expect(200);
    expect(res.headers["content-type"]).to.equal("text/javascript; charset=utf-8");
    expect(res.headers["cache-control"]).to.equal(
      "public, max-age=300, stale-while-revalidate=86400",
    );
    expect(res.headers["access-control-allow-origin"]).to.equal("*");
    expect(res.headers["cross-origin-resource-policy"]).to.equal("cross-origin");
    expect(res.headers["x-content-type-options"]).to.equal("nosniff");
    expect(res.headers["content-encoding"]).to.equal(undefined);
    expect(res.headers["set-cookie"]).to.equal(undefined);
    const body = res.body as Buffer;
    const hash = crypto.createHash("sha256").update(body).digest("base64url").slice(0, 27);
    expect(res.headers.etag).to.equal(`"${hash}"`);
    expect(body.toString("utf8")).to.include("data-site-id");
    expect(body.toString("utf8")).to.include("service:notice:");
  });

  it("answers 304 to the same ETag, and the whole file to another", async () => {
    const first = await request(service.server).get("/widget.js").expect(200);
    const etag = first.headers.etag as string;
    await request(service.server).get("/widget.js").set("If-None-Match", etag).expect(304);
    await request(service.server)
      .get("/widget.js")
      .set("If-None-Match", `"other", W/${etag}`)
      .expect(304);
    await request(service.server).get("/widget.js").set("If-None-Match", '"other"').expect(200);
  });

  it("sends brotli or gzip to browsers that take them, the same bytes inside", async () => {
    const raw = async (encoding: string) => {
      const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http
          .get(`${service.url}/widget.js`, { headers: { "accept-encoding": encoding } }, resolve)
          .on("error", reject),
      );
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return { headers: res.headers, body: Buffer.concat(chunks) };
    };
    const plain = (await raw("identity")).body;
    const br = await raw("gzip, br");
    expect(br.headers["content-encoding"]).to.equal("br");
    expect(br.headers.vary).to.include("Accept-Encoding");
    expect(brotliDecompressSync(br.body).equals(plain)).to.equal(true);
    const gz = await raw("gzip");
    expect(gz.headers["content-encoding"]).to.equal("gzip");
    expect(gunzipSync(gz.body).equals(plain)).to.equal(true);
    expect(gz.body.length).to.be.below(WIDGET_BUDGET_GZIP_BYTES);
  });

  it("answers HEAD with the headers and no body, and refuses other methods", async () => {
    const head = await request(service.server).head("/widget.js").expect(200);
    expect(head.headers.etag).to.be.a("string");
    expect(head.text ?? "").to.equal("");
    const post = await request(service.server).post("/widget.js").expect(405);
    expect(post.body.error.code).to.equal("method_not_allowed");
  });

  it("prints, with `sitevoice widget info`, the integrity hash of the bytes it serves", async () => {
    const served = (
      await bytes(request(service.server).get("/widget.js").set("Accept-Encoding", "identity"))
    ).body as Buffer;
    const { stdout } = await run("node", ["bin/sitevoice.js", "widget", "info"], {
      env: { ...process.env, PUBLIC_BASE_URL: "https://voice.example" },
    });
    const integrity = `sha384-${crypto.createHash("sha384").update(served).digest("base64")}`;
    expect(stdout).to.include(`integrity  ${integrity}`);
    expect(stdout).to.include(
      `<script src="https://voice.example/widget.js" data-site-id="YOUR_SITE_ID" ` +
        `integrity="${integrity}" crossorigin="anonymous" async></script>`,
    );
  });

  it("writes the bundle with `sitevoice widget build --out`, and refuses stray arguments", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "sitevoice-widget-"));
    try {
      const out = path.join(dir, "w.js");
      await run("node", ["bin/sitevoice.js", "widget", "build", "--out", out]);
      const built = await buildWidget();
      expect(readFileSync(out).equals(built.code)).to.equal(true);
      const refused = await run("node", ["bin/sitevoice.js", "widget", "build", "--outt", out])
        .then(() => undefined)
        .catch((error: { code: number; stderr: string }) => error);
      expect(refused?.code).to.equal(1);
      expect(refused?.stderr).to.include("widget build: unknown option --outt");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails the build above the budget, saying by how much", async () => {
    const error = await buildWidget({ budgetBytes: 1024 }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(WidgetTooLarge);
    expect((error as WidgetTooLarge).gzipBytes).to.be.above(1024);
    expect((error as Error).message).to.match(
      /^the widget is \d+\.\d KB gzipped, over its budget of 1\.0 KB$/,
    );
  });

  it("fails the build of a widget that grew past 20 KB gzipped", async () => {
    // Incompressible bytes, as an added library would bring, on top of the real widget.
    const dir = mkdtempSync(path.join(os.tmpdir(), "sitevoice-big-"));
    try {
      const entry = path.join(dir, "main.ts");
      const filler = crypto.randomBytes(12 * 1024).toString("base64");
      const real = path.resolve("widget/src/main.ts");
      writeFileSync(
        entry,
        `import ${JSON.stringify(real)};\nconsole.log(${JSON.stringify(filler)});\n`,
      );
      const error = await buildWidget({ entry }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(WidgetTooLarge);
      expect((error as WidgetTooLarge).budgetBytes).to.equal(WIDGET_BUDGET_GZIP_BYTES);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe("the demo page", () => {
    it("is not served unless SITEVOICE_DEMO is on", async () => {
      const res = await request(service.server).get("/demo/anything").expect(404);
      expect(res.body.error.code).to.equal("not_found");
    });

    it("embeds the widget for a site that lists the service's host", async () => {
      const workspaceId = await demo.workspace();
      const host = new URL(demo.url).host;
      const siteId = `demo-${crypto.randomBytes(4).toString("hex")}`;
      await demo.sites.create(operatorPrincipal(workspaceId, "test"), {
        site_id: siteId,
        business_name: "Demo <Bistro>",
        business_description: "",
        domain: host,
      });
      const res = await request(demo.server).get(`/demo/${siteId}`).expect(200);
      expect(res.headers["content-type"]).to.match(/^text\/html/);
      expect(res.text).to.include(
        `<script src="${demo.url}/widget.js" data-site-id="${siteId}" async>`,
      );
      expect(res.text).to.include("Demo &lt;Bistro&gt;");
      expect(res.text).not.to.include("stays hidden");
    });

    it("says how to make it work for a site that does not list the service's host", async () => {
      const workspaceId = await demo.workspace();
      const siteId = `demo-${crypto.randomBytes(4).toString("hex")}`;
      await demo.sites.create(operatorPrincipal(workspaceId, "test"), {
        site_id: siteId,
        business_name: "Elsewhere",
        business_description: "",
        domain: `${siteId}.example`,
      });
      const res = await request(demo.server).get(`/demo/${siteId}`).expect(200);
      expect(res.text).to.include("stays hidden here");
      expect(res.text).to.include(new URL(demo.url).host);
    });

    it("says so when the site's pages leave out the demo page", async () => {
      const workspaceId = await demo.workspace();
      const siteId = `demo-${crypto.randomBytes(4).toString("hex")}`;
      await demo.sites.create(operatorPrincipal(workspaceId, "test"), {
        site_id: siteId,
        business_name: "Only home",
        business_description: "",
        domain: new URL(demo.url).host,
        enabled_pages: ["/"],
      });
      const res = await request(demo.server).get(`/demo/${siteId}`).expect(200);
      expect(res.text).not.to.include("stays hidden here");
      expect(res.text).to.include("stays hidden on this page");
      expect(res.text).to.include(`<code>/demo/${siteId}</code>`);
    });

    it("answers 404 with a page for an unknown site, escaping what it quotes", async () => {
      const res = await request(demo.server).get("/demo/%3Cb%3Enope").expect(404);
      expect(res.headers["content-type"]).to.match(/^text\/html/);
      expect(res.text).to.include('No site "&lt;b&gt;nope"');
    });
  });
});
