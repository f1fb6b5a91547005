/**
 * A stand-in for a customer's REST API, which the tests cannot reach for real. It follows Django
 * REST Framework's public conventions, the ones the REST adapter's querystring mode speaks:
 * django-filter lookups (`field=`, `field__gt=` …, `field__in=a,b`; `__contains` is
 * case-insensitive like `icontains`; `__neq` as the service adds it), SearchFilter on `q` (every
 * whitespace- or comma-separated term must be in one of the search fields, case-insensitively),
 * OrderingFilter on `ordering`, and LimitOffsetPagination's `{count, next, previous, results}`.
 * Like django-filter in strict mode it answers 400 to an unknown filter or a value of the wrong
 * type, so a wrongly encoded query fails loudly instead of being ignored.
 *
 * Routes under /api: `products/` (paginated), `plain/products/` (an unpaginated view: a bare
 * list, `limit` ignored), `status/<code>/`, `not-json/`, `wrong-shape/`, `slow/` (answers after
 * `slowMs`, or never), `drop/` (destroys the socket), `redirect-here/` (same host),
 * `redirect-away/` (127.0.0.1 ↔ localhost), `redirect-loop/<n>/`, `huge/` (a JSON list of
 * `hugeBytes`, streamed). Every request is recorded (method, url, headers), and the server tells
 * when a client went away before its answer was complete.
 */
import { EventEmitter, once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { CONFORMANCE_DATASET } from "../../core/host/testing/conformance-dataset.ts";

export interface RecordedRequest {
  method: string;
  /** Path and query exactly as received. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
}

export interface DrfServerOptions {
  /** The records served; CONFORMANCE_DATASET when left out. */
  records?: readonly Record<string, unknown>[];
  /** SearchFilter's search_fields. */
  searchFields?: string[];
  /** How long `slow/` waits before answering; it never answers when left out. */
  slowMs?: number;
  /** Bytes `huge/` sends; 64 MiB when left out. */
  hugeBytes?: number;
}

export interface DrfServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  /** The next request whose path starts with `prefix`. */
  nextRequest(prefix: string): Promise<RecordedRequest>;
  /** The next request to `prefix` whose client closed the connection before the answer ended. */
  clientGone(prefix: string): Promise<RecordedRequest>;
  /** What `huge/` has written so far and whether it got to the end. */
  huge: { bytesSent: number; finished: boolean };
  close(): Promise<void>;
}

/** The parameters of the filter backends, the paginator and format negotiation: not filters. */
const RESERVED = new Set(["q", "ordering", "limit", "offset", "format"]);
const LOOKUPS = new Set(["neq", "gt", "gte", "lt", "lte", "contains", "in"]);
const DEFAULT_LIMIT = 100;

type FieldKind = "number" | "boolean" | "date" | "string";
type Record_ = Record<string, unknown>;

class BadRequest extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export async function startDrfServer(options: DrfServerOptions = {}): Promise<DrfServer> {
  const records: readonly Record_[] = options.records ?? CONFORMANCE_DATASET.map((r) => ({ ...r }));
  const searchFields = options.searchFields ?? ["name", "description"];
  const hugeBytes = options.hugeBytes ?? 64 * 1024 * 1024;
  const events = new EventEmitter();
  const requests: RecordedRequest[] = [];
  const huge = { bytesSent: 0, finished: false };
  const kinds = fieldKinds(records);

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://drf.test");
    const recorded: RecordedRequest = {
      method: req.method ?? "",
      url: req.url ?? "",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
    };
    requests.push(recorded);
    events.emit("request", recorded);
    res.on("close", () => {
      if (!res.writableFinished) events.emit("gone", recorded);
    });
    if (req.method !== "GET") {
      json(res, 405, { detail: `Method "${req.method}" not allowed.` });
      return;
    }
    const path = url.pathname;
    const host = req.headers.host ?? "";
    try {
      if (path === "/api/products/") {
        const found = query(records, url.searchParams, kinds, searchFields);
        json(res, 200, paginate(found, url));
      } else if (path === "/api/plain/products/") {
        json(res, 200, query(records, url.searchParams, kinds, searchFields));
      } else if (/^\/api\/status\/\d{3}\/$/.test(path)) {
        json(res, Number(path.split("/")[3]), { detail: "Backend trouble." });
      } else if (path === "/api/not-json/") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("<html><body>Server Error</body></html>");
      } else if (path === "/api/wrong-shape/") {
        json(res, 200, { detail: "Not a list." });
      } else if (path === "/api/slow/") {
        if (options.slowMs !== undefined) {
          const timer = setTimeout(() => json(res, 200, []), options.slowMs);
          res.on("close", () => clearTimeout(timer));
        }
      } else if (path === "/api/drop/") {
        req.socket.destroy();
      } else if (path === "/api/redirect-here/") {
        redirect(res, `/api/products/${url.search}`);
      } else if (path === "/api/redirect-away/") {
        const [name, port] = host.split(":");
        const other = name === "localhost" ? "127.0.0.1" : "localhost";
        redirect(res, `http://${other}:${port}/api/products/${url.search}`);
      } else if (/^\/api\/redirect-loop\/\d+\/$/.test(path)) {
        redirect(res, `/api/redirect-loop/${Number(path.split("/")[3]) + 1}/`);
      } else if (path === "/api/huge/") {
        void streamHuge(res, hugeBytes, huge);
      } else {
        json(res, 404, { detail: "Not found." });
      }
    } catch (error) {
      if (!(error instanceof BadRequest)) throw error;
      json(res, 400, { [error.field]: [error.message] });
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;

  const next = (event: string, prefix: string) =>
    new Promise<RecordedRequest>((resolve) => {
      const listener = (request: RecordedRequest) => {
        if (!request.path.startsWith(prefix)) return;
        events.off(event, listener);
        resolve(request);
      };
      events.on(event, listener);
    });

  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    nextRequest: (prefix) => next("request", prefix),
    clientGone: (prefix) => next("gone", prefix),
    huge,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

function redirect(res: http.ServerResponse, location: string): void {
  res.writeHead(302, { location, "content-length": 0 });
  res.end();
}

/** Each field's type, read from the data as a serializer's field would declare it. */
function fieldKinds(records: readonly Record_[]): Map<string, FieldKind> {
  const kinds = new Map<string, FieldKind>();
  for (const record of records) {
    for (const [field, value] of Object.entries(record)) {
      if (kinds.has(field) || value === null || value === undefined) continue;
      if (typeof value === "number") kinds.set(field, "number");
      else if (typeof value === "boolean") kinds.set(field, "boolean");
      else if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
        kinds.set(field, "date");
      } else kinds.set(field, "string");
    }
  }
  return kinds;
}

/** A query-string value as the field's filter parses it; 400 as django-filter words it. */
function parseValue(raw: string, kind: FieldKind, parameter: string): unknown {
  switch (kind) {
    case "number": {
      if (!/^-?\d+(\.\d+)?$/.test(raw)) throw new BadRequest(parameter, "Enter a number.");
      return Number(raw);
    }
    case "boolean": {
      // django-filter's BooleanWidget.
      if (["true", "True", "1"].includes(raw)) return true;
      if (["false", "False", "0"].includes(raw)) return false;
      throw new BadRequest(parameter, "Select a valid choice.");
    }
    case "date": {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(raw)) throw new BadRequest(parameter, "Enter a valid date.");
      return raw;
    }
    default:
      return raw;
  }
}

/** The filter, search and ordering backends in the order DRF runs them. */
function query(
  records: readonly Record_[],
  params: URLSearchParams,
  kinds: Map<string, FieldKind>,
  searchFields: string[],
): Record_[] {
  let found = [...records];
  for (const [parameter, raw] of params) {
    if (RESERVED.has(parameter)) continue;
    const cut = parameter.lastIndexOf("__");
    const suffix = cut === -1 ? "" : parameter.slice(cut + 2);
    const [field, lookup] = LOOKUPS.has(suffix)
      ? [parameter.slice(0, cut), suffix]
      : [parameter, "exact"];
    const kind = kinds.get(field);
    if (kind === undefined) throw new BadRequest(parameter, "Unknown filter.");
    if (lookup === "contains") {
      const needle = raw.toLowerCase();
      found = found.filter((r) =>
        String(r[field] ?? "")
          .toLowerCase()
          .includes(needle),
      );
      continue;
    }
    if (lookup === "in") {
      const values = raw.split(",").map((v) => parseValue(v, kind, parameter));
      found = found.filter((r) => values.includes(r[field]));
      continue;
    }
    const value = parseValue(raw, kind, parameter);
    found = found.filter((r) => {
      const actual = r[field] as string | number | boolean;
      switch (lookup) {
        case "exact":
          return actual === value;
        case "neq":
          return actual !== value;
        case "gt":
          return actual > (value as typeof actual);
        case "gte":
          return actual >= (value as typeof actual);
        case "lt":
          return actual < (value as typeof actual);
        default:
          return actual <= (value as typeof actual);
      }
    });
  }
  const terms = (params.get("q") ?? "").split(/[\s,]+/).filter((t) => t !== "");
  for (const term of terms.map((t) => t.toLowerCase())) {
    found = found.filter((r) =>
      searchFields.some((f) =>
        String(r[f] ?? "")
          .toLowerCase()
          .includes(term),
      ),
    );
  }
  const ordering = (params.get("ordering") ?? "")
    .split(",")
    .map((o) => o.trim())
    .filter((o) => kinds.has(o.replace(/^-/, ""))); // OrderingFilter drops unknown fields
  for (const key of ordering.reverse()) {
    const field = key.replace(/^-/, "");
    const sign = key.startsWith("-") ? -1 : 1;
    found.sort((a, b) => sign * compare(a[field], b[field]));
  }
  return found;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === "string" && typeof b === "string") return a.localeCompare(b);
  return Number(a) - Number(b);
}

/** LimitOffsetPagination: a bad or missing limit falls back to the default, as DRF does. */
function paginate(found: Record_[], url: URL) {
  const number = (name: string, fallback: number) => {
    const value = Number(url.searchParams.get(name));
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  const limit = number("limit", DEFAULT_LIMIT);
  const offset = number("offset", 0);
  const link = (at: number) => {
    const page = new URL(url);
    page.searchParams.set("limit", String(limit));
    page.searchParams.set("offset", String(at));
    return page.href;
  };
  return {
    count: found.length,
    next: offset + limit < found.length ? link(offset + limit) : null,
    previous: offset > 0 ? link(Math.max(0, offset - limit)) : null,
    results: found.slice(offset, offset + limit),
  };
}

/** A valid JSON list of `total` bytes, written as fast as the client reads. */
async function streamHuge(
  res: http.ServerResponse,
  total: number,
  progress: { bytesSent: number; finished: boolean },
): Promise<void> {
  res.writeHead(200, { "content-type": "application/json" });
  const record = JSON.stringify({ id: 1, name: "x".repeat(1000) });
  const chunk = Buffer.from(`${`${record},`.repeat(64)}`);
  const drainedOrClosed = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        res.off("drain", done);
        res.off("close", done);
        resolve();
      };
      res.on("drain", done);
      res.on("close", done);
    });
  const write = async (data: Buffer | string) => {
    progress.bytesSent += Buffer.byteLength(data);
    if (!res.write(data)) await drainedOrClosed();
  };
  await write("[");
  while (progress.bytesSent + chunk.length < total) {
    if (res.destroyed) return;
    await write(chunk);
  }
  await write(`${record}]`);
  progress.finished = true;
  res.end();
}
