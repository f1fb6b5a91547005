/**
 * The edges of HTTP that no route handler sees: bodies whose Content-Encoding or charset the
 * service cannot read, parser failures, OPTIONS, a method a path does not serve, and requests
 * Node's HTTP parser refuses before Express runs. Every answer must be the envelope, never a 500
 * and never a low-level message.
 */
import net from "node:net";
import type { Duplex } from "node:stream";
import zlib from "node:zlib";
import { expect } from "chai";
import request from "supertest";
import type { Response } from "supertest";
import pino from "pino";
import { clientErrorHandler } from "../core/http/client-error-handler.ts";
import { operatorPrincipal } from "../core/auth/principal.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;
const SITE = "edge-shop";
const ORIGIN = "https://edge-shop.example";

/** Text a parser, zlib or Node writes in its own words; none of it may reach a client. */
const LOW_LEVEL =
  /incorrect header check|unexpected token|unexpected end|invalid stored block|unknown compression method|decompression failed|Z_[A-Z_]+_ERROR|ERR_[A-Z_]+|HPE_[A-Z_]+|failed to decode param|JSON at position|zlib/i;

const newSite = (siteId: string) => ({
  site_id: siteId,
  business_name: "Edge Shop",
  business_description: "Things at the edge",
  domain: `${siteId}.example`,
});

/** The envelope of an error: status, JSON, `success: false`, the code, a request id, nothing low-level. */
function expectErrorEnvelope(res: Response, status: number, code: string) {
  expect(res.status, res.text).to.equal(status);
  expect(res.headers["content-type"]).to.match(/^application\/json/);
  expect(res.body.success).to.equal(false);
  expect(res.body.error.code).to.equal(code);
  expect(res.body.meta.request_id).to.match(/^req_/);
  expect(res.headers["x-request-id"]).to.equal(res.body.meta.request_id);
  expect(res.text).not.to.match(LOW_LEVEL);
}

/** One route family that reads a body, with a body it would accept. */
interface BodyRoute {
  title: string;
  method: "post" | "patch" | "put";
  path: string;
  contentType: string;
  body: string;
  /** Sends the API key (the parser runs before the key check, so either way the body is read). */
  keyed: boolean;
}

const BODY_ROUTES: BodyRoute[] = [
  {
    title: "POST /v1/sites",
    method: "post",
    path: "/v1/sites",
    contentType: "application/json",
    body: JSON.stringify(newSite("edge-created")),
    keyed: true,
  },
  {
    title: "PATCH /v1/sites/:id",
    method: "patch",
    path: `/v1/sites/${SITE}`,
    contentType: "application/json",
    body: JSON.stringify({ business_name: "Edge Shop 2" }),
    keyed: true,
  },
  {
    title: "PUT /v1/sites/:id (JSON)",
    method: "put",
    path: `/v1/sites/${SITE}`,
    contentType: "application/json",
    body: JSON.stringify(newSite(SITE)),
    keyed: true,
  },
  {
    title: "PUT /v1/sites/:id (YAML)",
    method: "put",
    path: `/v1/sites/${SITE}`,
    contentType: "application/yaml",
    body: `business_name: Edge Shop\nbusiness_description: Things\ndomain: ${SITE}.example\n`,
    keyed: true,
  },
  {
    title: "POST /v1/:siteId/token",
    method: "post",
    path: `/v1/${SITE}/token`,
    contentType: "application/json",
    body: JSON.stringify({ page_url: `${ORIGIN}/` }),
    keyed: false,
  },
  {
    title: "POST /v1/:siteId/query (raw body)",
    method: "post",
    path: `/v1/${SITE}/query`,
    contentType: "application/json",
    body: JSON.stringify({ collection: "products", query: "sofa" }),
    keyed: true,
  },
  {
    title: "PATCH /v1/public/leads/:id",
    method: "patch",
    path: "/v1/public/leads/lead_01jd0000000000000000000000",
    contentType: "application/json",
    body: JSON.stringify({ status: "contacted" }),
    keyed: true,
  },
];

/** What came back on a raw socket: status, lower-case headers and the body text. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `text` to the service on a plain socket and reads until the server closes it. */
function rawExchange(port: number, text: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      const answer = Buffer.concat(chunks).toString("utf8");
      const split = answer.indexOf("\r\n\r\n");
      const head = (split === -1 ? answer : answer.slice(0, split)).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head[0] ?? "")?.[1] ?? 0),
        headers,
        body: split === -1 ? "" : answer.slice(split + 4),
      });
    };
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("close", finish);
    socket.on("error", (error) => {
      if (chunks.length > 0) finish();
      else if (!settled) {
        settled = true;
        reject(error);
      }
    });
    socket.setTimeout(5000, () => socket.destroy(new Error("no answer within 5 s")));
    socket.write(text);
  });
}

/** The envelope checks of `expectErrorEnvelope`, for an answer read off a raw socket. */
function expectRawErrorEnvelope(answer: RawAnswer, status: number, code: string) {
  expect(answer.status, JSON.stringify(answer)).to.equal(status);
  expect(answer.headers["content-type"]).to.match(/^application\/json/);
  expect(answer.headers.connection).to.equal("close");
  expect(Number(answer.headers["content-length"])).to.equal(Buffer.byteLength(answer.body));
  expect(answer.body).not.to.match(LOW_LEVEL);
  const body = JSON.parse(answer.body);
  expect(body.success).to.equal(false);
  expect(body.error.code).to.equal(code);
  expect(body.meta.request_id).to.match(/^req_/);
  expect(answer.headers["x-request-id"]).to.equal(body.meta.request_id);
  return body;
}

/** A stand-in for the socket of `clientError`, recording what is done to it. */
function fakeSocket(state: { writable: boolean; answering?: boolean }) {
  const calls: string[] = [];
  const written: string[] = [];
  const socket = {
    writable: state.writable,
    _httpMessage: state.answering === true ? { headersSent: true } : undefined,
    write(chunk: Buffer) {
      calls.push("write");
      written.push(chunk.toString());
      return true;
    },
    end(chunk?: Buffer) {
      calls.push("end");
      if (chunk !== undefined) written.push(chunk.toString());
    },
    destroy() {
      calls.push("destroy");
    },
  };
  return { socket: socket as unknown as Duplex, calls, written };
}

const parseError = (code: string) => Object.assign(new Error(`Parse Error: ${code}`), { code });

describe("HTTP edges: every answer is the envelope", function () {
  let database: TestDatabase | undefined;
  let service: TestService;
  let auth: { Authorization: string };

  /** `route`'s request with `body` sent as is, under the given Content-Encoding. */
  const send = (
    route: BodyRoute,
    body: string | Buffer,
    encoding?: string,
    contentType?: string,
  ) => {
    const agent = request(service.server);
    let req = agent[route.method](route.path)
      .set("Origin", ORIGIN)
      .set("Content-Type", contentType ?? route.contentType);
    if (route.keyed) req = req.set(auth);
    if (encoding !== undefined) req = req.set("Content-Encoding", encoding);
    // superagent would JSON-serialize a Buffer under a JSON Content-Type; send the bytes as they are.
    if (Buffer.isBuffer(body)) req = req.serialize((bytes: unknown) => bytes as string);
    return req.send(body);
  };

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    service = await startTestService(database.url);
    const workspaceId = await service.workspace();
    auth = { Authorization: `Bearer ${await service.key(workspaceId)}` };
    await service.sites.create(operatorPrincipal(workspaceId, "test"), newSite(SITE));
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  describe("Content-Encoding", () => {
    for (const route of BODY_ROUTES) {
      for (const encoding of ["gzip", "deflate", "br"]) {
        it(`400 invalid_request for a body that is not ${encoding} on ${route.title}`, async () => {
          const res = await send(route, route.body, encoding);
          expectErrorEnvelope(res, 400, "invalid_request");
          expect(res.body.error.details.field).to.equal("body");
          expect(res.body.error.message).to.include(`could not be decoded as ${encoding}`);
        });
      }

      it(`415 unsupported_media_type for Content-Encoding compress on ${route.title}`, async () => {
        const res = await send(route, route.body, "compress");
        expectErrorEnvelope(res, 415, "unsupported_media_type");
        expect(res.body.error.message).to.include("compress");
      });
    }

    it("415 unsupported_media_type for an encoding nobody knows (x-squash)", async () => {
      const res = await send(BODY_ROUTES[0]!, BODY_ROUTES[0]!.body, "x-squash");
      expectErrorEnvelope(res, 415, "unsupported_media_type");
    });

    // Node.js 20 has no zstd; where the runtime has it, body-parser decodes it like gzip.
    const zstdReadable = "createZstdDecompress" in zlib;
    it(`${zstdReadable ? 400 : 415} for Content-Encoding zstd on this Node.js`, async () => {
      const res = await send(BODY_ROUTES[0]!, BODY_ROUTES[0]!.body, "zstd");
      if (zstdReadable) expectErrorEnvelope(res, 400, "invalid_request");
      else expectErrorEnvelope(res, 415, "unsupported_media_type");
    });

    it("a body that really is gzip-compressed JSON still creates a site", async () => {
      const body = zlib.gzipSync(Buffer.from(JSON.stringify(newSite("edge-gzipped"))));
      const res = await send(BODY_ROUTES[0]!, body, "gzip").expect(201);
      expect(res.body.success).to.equal(true);
      expect(res.body.data.site_id).to.equal("edge-gzipped");
    });

    it("a body that really is br-compressed YAML still replaces a site", async () => {
      const yaml = BODY_ROUTES.find((r) => r.contentType === "application/yaml")!;
      const res = await send(yaml, zlib.brotliCompressSync(Buffer.from(yaml.body)), "br");
      expect(res.status, res.text).to.be.oneOf([200, 201]);
      expect(res.body.data.site_id).to.equal(SITE);
    });
  });

  describe("charset", () => {
    it("415 unsupported_media_type for a JSON body in a charset nobody reads", async () => {
      const res = await send(
        BODY_ROUTES[0]!,
        BODY_ROUTES[0]!.body,
        undefined,
        "application/json; charset=klingon",
      );
      expectErrorEnvelope(res, 415, "unsupported_media_type");
      expect(res.body.error.message).to.include("klingon");
    });

    it("415 unsupported_media_type for a YAML body in a charset nobody reads", async () => {
      const yaml = BODY_ROUTES.find((r) => r.contentType === "application/yaml")!;
      const res = await send(yaml, yaml.body, undefined, "application/yaml; charset=klingon");
      expectErrorEnvelope(res, 415, "unsupported_media_type");
    });

    it("a YAML body's charset is refused in the same words as a JSON body's", async () => {
      const yaml = BODY_ROUTES.find((r) => r.contentType === "application/yaml")!;
      const asYaml = await send(yaml, yaml.body, undefined, 'application/yaml; charset="Klingon"');
      const asJson = await send(
        BODY_ROUTES[0]!,
        BODY_ROUTES[0]!.body,
        undefined,
        'application/json; charset="Klingon"',
      );
      expectErrorEnvelope(asYaml, 415, "unsupported_media_type");
      expect(asYaml.body.error.message).to.equal(asJson.body.error.message);
      expect(asYaml.body.error.details).to.deep.equal(asJson.body.error.details);
      expect(asYaml.body.error.details).to.deep.equal({
        field: "content-type",
        charset: "klingon",
      });
    });

    for (const contentType of [
      "application/yaml; charset=UTF-8",
      'application/yaml; charset="utf-8"',
      "application/yaml;charset=utf8",
      "application/yaml; charset=us-ascii",
    ]) {
      it(`a YAML body declared as ${contentType} is read`, async () => {
        const yaml = BODY_ROUTES.find((r) => r.contentType === "application/yaml")!;
        const res = await send(yaml, yaml.body, undefined, contentType);
        expect(res.status, res.text).to.be.oneOf([200, 201]);
        expect(res.body.data.site_id).to.equal(SITE);
      });
    }
  });

  describe("YAML is read only where a whole site is put", () => {
    const jsonOnly = BODY_ROUTES.filter(
      (r) => r.path.startsWith("/v1/sites") && r.method !== "put",
    );
    for (const route of jsonOnly) {
      for (const contentType of ["application/yaml", "application/x-yaml", "text/yaml"]) {
        it(`415 unsupported_media_type for ${contentType} on ${route.title}`, async () => {
          const yaml = "business_name: Edge Shop\nbusiness_description: Things\n";
          const res = await send(route, yaml, undefined, contentType);
          expectErrorEnvelope(res, 415, "unsupported_media_type");
          expect(res.body.error.message).to.include("PUT /v1/sites/:id");
          expect(res.body.error.details).to.deep.equal({ field: "content-type" });
        });
      }
    }

    it("PUT /v1/sites/:id still takes YAML", async () => {
      const yaml = BODY_ROUTES.find((r) => r.contentType === "application/yaml")!;
      const res = await send(yaml, yaml.body);
      expect(res.status, res.text).to.be.oneOf([200, 201]);
      expect(res.body.data.business_name).to.equal("Edge Shop");
    });
  });

  describe("parser and router messages stay inside", () => {
    it("malformed JSON is 400 with details.field body and no parser message", async () => {
      const res = await send(BODY_ROUTES[0]!, '{"business_name": "Edge", ');
      expectErrorEnvelope(res, 400, "invalid_request");
      expect(res.body.error.details).to.deep.equal({ field: "body" });
    });

    it("a path that does not decode is 400 without the router's message", async () => {
      const res = await request(service.server).get("/v1/sites/%ZZ").set(auth);
      expectErrorEnvelope(res, 400, "invalid_request");
      expect(res.body.error.details).to.deep.equal({ field: "path" });
    });
  });

  describe("OPTIONS", () => {
    const cases: [path: string, allow: string[]][] = [
      ["/v1/sites", ["GET", "HEAD", "POST"]],
      [`/v1/sites/${SITE}`, ["DELETE", "GET", "HEAD", "PATCH", "PUT"]],
      [`/v1/sites/${SITE}/versions/1/restore`, ["POST"]],
      ["/v1/health", ["GET", "HEAD"]],
      ["/v1/leads", ["GET", "HEAD"]],
      ["/v1/public/leads/lead_x", ["PATCH"]],
    ];
    for (const [path, allow] of cases) {
      it(`OPTIONS ${path} is 200 in the envelope with allow ${allow.join(", ")}`, async () => {
        const res = await request(service.server).options(path);
        expect(res.status, res.text).to.equal(200);
        expect(res.headers["content-type"]).to.match(/^application\/json/);
        expect(res.body.success).to.equal(true);
        expect(res.body.data).to.deep.equal({ allow });
        expect(res.body.meta.request_id).to.match(/^req_/);
        expect(res.headers["x-request-id"]).to.equal(res.body.meta.request_id);
        expect(res.headers.allow).to.equal(allow.join(", "));
      });
    }

    it("OPTIONS on an unknown path is 404 not_found", async () => {
      const res = await request(service.server).options("/v1/nothing/here/at-all");
      expectErrorEnvelope(res, 404, "not_found");
    });

    it("the widget's own preflight still answers 204 with CORS for the site's origin", async () => {
      const res = await request(service.server)
        .options(`/v1/${SITE}/token`)
        .set("Origin", ORIGIN)
        .set("Access-Control-Request-Method", "POST")
        .expect(204);
      expect(res.headers["access-control-allow-origin"]).to.equal(ORIGIN);
      expect(res.headers["access-control-allow-methods"]).to.equal("POST");
    });

    it("the widget's preflight from a foreign origin is still 403 origin_not_allowed", async () => {
      const res = await request(service.server)
        .options(`/v1/${SITE}/query`)
        .set("Origin", "https://elsewhere.example");
      expectErrorEnvelope(res, 403, "origin_not_allowed");
    });
  });

  describe("405 for a method the path does not serve", () => {
    const cases: [method: "delete" | "put" | "post" | "patch", path: string, allow: string[]][] = [
      ["delete", "/v1/health", ["GET", "HEAD"]],
      ["put", "/v1/leads", ["GET", "HEAD"]],
      ["post", `/v1/sites/${SITE}`, ["DELETE", "GET", "HEAD", "PATCH", "PUT"]],
      ["patch", "/v1/sites", ["GET", "HEAD", "POST"]],
      ["delete", `/v1/${SITE}/config`, ["GET", "HEAD", "OPTIONS"]],
    ];
    for (const [method, path, allow] of cases) {
      it(`${method.toUpperCase()} ${path} is 405 method_not_allowed with Allow`, async () => {
        const res = await request(service.server)[method](path).set(auth);
        expectErrorEnvelope(res, 405, "method_not_allowed");
        expect(res.headers.allow).to.equal(allow.join(", "));
        expect(res.body.error.details).to.deep.equal({
          method: method.toUpperCase(),
          path,
          allow,
        });
      });
    }

    it("an unknown path is still 404 not_found", async () => {
      const res = await request(service.server).delete("/v1/nothing/here/at-all").set(auth);
      expectErrorEnvelope(res, 404, "not_found");
      expect(res.headers.allow).to.equal(undefined);
    });
  });

  describe("the service's root, GET /", () => {
    /** What Chromium sends as Accept when it opens a page. */
    const BROWSER =
      "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

    it("sends a browser (Accept text/html first) to the dashboard with a 302", async () => {
      const res = await request(service.server).get("/").set("Accept", BROWSER);
      expect(res.status, res.text).to.equal(302);
      expect(res.headers.location).to.equal("/dashboard");
    });

    it("sends HEAD from a browser to the dashboard too", async () => {
      const res = await request(service.server).head("/").set("Accept", BROWSER);
      expect([res.status, res.headers.location]).to.deep.equal([302, "/dashboard"]);
    });

    it("keeps the JSON 404 for curl's Accept */*", async () => {
      const res = await request(service.server).get("/").set("Accept", "*/*");
      expectErrorEnvelope(res, 404, "not_found");
    });

    it("keeps the JSON 404 for Accept application/json", async () => {
      const res = await request(service.server).get("/").set("Accept", "application/json");
      expectErrorEnvelope(res, 404, "not_found");
    });

    it("keeps the JSON 404 without an Accept header", async () => {
      const res = await request(service.server).get("/").unset("Accept");
      expectErrorEnvelope(res, 404, "not_found");
    });
  });

  describe("requests Node's HTTP parser refuses", () => {
    const refuse = clientErrorHandler(pino({ level: "silent" }));

    it("a 20 KB URL is 431 headers_too_large in the envelope", async () => {
      const answer = await rawExchange(
        service.port,
        `GET /v1/health?pad=${"x".repeat(20 * 1024)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      );
      const body = expectRawErrorEnvelope(answer, 431, "headers_too_large");
      expect(body.meta.ts).to.be.a("string");
    });

    it("a 20 KB header is 431 headers_too_large in the envelope", async () => {
      const answer = await rawExchange(
        service.port,
        `GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ${"y".repeat(20 * 1024)}\r\n\r\n`,
      );
      expectRawErrorEnvelope(answer, 431, "headers_too_large");
    });

    it("a request line that is not HTTP is 400 invalid_request in the envelope", async () => {
      const answer = await rawExchange(service.port, "HELLO THERE\r\n\r\n");
      expectRawErrorEnvelope(answer, 400, "invalid_request");
    });

    it("a header line without a colon is 400 invalid_request in the envelope", async () => {
      const answer = await rawExchange(
        service.port,
        "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nthis is no header\r\n\r\n",
      );
      expectRawErrorEnvelope(answer, 400, "invalid_request");
    });

    it("each refused request gets a fresh request id", async () => {
      const first = await rawExchange(service.port, "HELLO THERE\r\n\r\n");
      const second = await rawExchange(service.port, "HELLO THERE\r\n\r\n");
      expect(first.headers["x-request-id"]).to.match(/^req_/);
      expect(first.headers["x-request-id"]).not.to.equal(second.headers["x-request-id"]);
    });

    it("a socket that is no longer writable is only destroyed, as Node does", () => {
      const { socket, calls } = fakeSocket({ writable: false });
      refuse(parseError("HPE_INVALID_METHOD"), socket);
      expect(calls).to.deep.equal(["destroy"]);
    });

    it("a connection reset by the client is only destroyed, as Node does", () => {
      const { socket, calls } = fakeSocket({ writable: true });
      refuse(parseError("ECONNRESET"), socket);
      expect(calls).to.deep.equal(["destroy"]);
    });

    it("a connection whose previous answer is being written is only destroyed", () => {
      const { socket, calls } = fakeSocket({ writable: true, answering: true });
      refuse(parseError("HPE_INVALID_METHOD"), socket);
      expect(calls).to.deep.equal(["destroy"]);
    });

    it("a writable socket gets one answer, however often the parser reports", () => {
      const { socket, calls, written } = fakeSocket({ writable: true });
      refuse(parseError("HPE_INVALID_METHOD"), socket);
      refuse(parseError("HPE_INVALID_METHOD"), socket);
      expect(calls).to.deep.equal(["end"]);
      expect(written[0]).to.match(/^HTTP\/1\.1 400 Bad Request\r\n/);
    });

    it("the service keeps answering after refusing a request", async () => {
      await rawExchange(service.port, "HELLO THERE\r\n\r\n");
      const res = await request(service.server).get("/v1/health").expect(200);
      expect(res.body.success).to.equal(true);
    });
  });
});
