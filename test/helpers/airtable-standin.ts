/**
 * A stand-in for Airtable's Web API, which tests cannot call for real, on 127.0.0.1. It follows
 * Airtable's public contract (Web API reference: List records, Get base schema, Get user info and
 * scopes; Errors; "Managing API call limits"):
 *
 * - `GET /v0/{baseId}/{tableIdOrName}`: List records (airtable-standin-tables.ts), with
 *   `filterByFormula` evaluated by a small evaluator of Airtable's formula language
 *   (airtable-formula.ts, airtable-formula-functions.ts).
 * - `GET /v0/meta/bases/{baseId}/tables`: `{tables: [{id, name, primaryFieldId, fields: [{id,
 *   name, type, options?}], views}]}`.
 * - `GET /v0/meta/whoami`: `{id, scopes}`.
 * - Bearer tokens are checked by the test's `authorize(token)`, so a test can tie them to tokens
 *   an OAuth server issued. Errors in Airtable's shapes: 401 AUTHENTICATION_REQUIRED, 404
 *   `{"error": "NOT_FOUND"}` (an unknown base or route) and TABLE_NOT_FOUND, 422
 *   INVALID_FILTER_BY_FORMULA, UNKNOWN_FIELD_NAME, INVALID_REQUEST_UNKNOWN and
 *   LIST_RECORDS_ITERATOR_NOT_AVAILABLE, 429 `{"errors": [{"error": "RATE_LIMIT_REACHED", …}]}`.
 *
 * Every request is recorded (path, query, token, status answered). `fail()` makes it answer
 * every request (or some, from some point on) with an error status, as a failing or
 * rate-limiting Airtable.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  AirtableError,
  listRecords,
  makeTable,
  type AirtableTableSpec,
  type StandinTable,
} from "./airtable-standin-tables.ts";

export type { AirtableFieldSpec, AirtableTableSpec } from "./airtable-standin-tables.ts";

export const DEFAULT_SCOPES = ["data.records:read", "schema.bases:read"];

export interface AirtableStandinOptions {
  baseId: string;
  tables: AirtableTableSpec[];
  /** Whether a bearer token is accepted. */
  authorize: (token: string) => boolean;
  /** What whoami answers as the token's scopes (read at each request); DEFAULT_SCOPES when left out. */
  scopes?: string[];
}

export interface StandinRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The bearer token sent, if any. */
  token: string | undefined;
  status?: number;
}

/** An answer forced on requests: `times` of them (every one when left out), after `after`. */
export interface StandinFailure {
  status: number;
  /** Airtable's message in the body; a default for the status when left out. */
  message?: string;
  times?: number;
  /** Requests answered as usual before the failures start; none when left out. */
  after?: number;
}

export interface AirtableStandin {
  /** `http://127.0.0.1:<port>`: an adapter's `apiUrl`. */
  origin: string;
  requests: StandinRequest[];
  /** The recorded requests to List records, to the metadata API (`tables`) or to whoami. */
  requestsTo(route: "records" | "tables" | "whoami"): StandinRequest[];
  /** The tables as served, with the ids they were given; one pushed (makeTable) is served next. */
  tables: StandinTable[];
  fail(failure: StandinFailure | undefined): void;
  close(): Promise<void>;
}

/** The error type and message of each status `fail()` may force (but 429, which has its own body). */
const MESSAGES: Record<number, [string, string]> = {
  401: ["AUTHENTICATION_REQUIRED", "Authentication required"],
  403: [
    "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND",
    "Invalid permissions, or the requested model was not found.",
  ],
  500: ["SERVER_ERROR", "Try again. If the problem persists, contact support."],
  502: ["BAD_GATEWAY", "Try again. If the problem persists, contact support."],
  503: ["SERVICE_UNAVAILABLE", "Try again. If the problem persists, contact support."],
};

export async function startAirtableStandin(
  options: AirtableStandinOptions,
): Promise<AirtableStandin> {
  const tables = options.tables.map(makeTable);
  const requests: StandinRequest[] = [];
  let failure: StandinFailure | undefined;

  const answer = (
    res: http.ServerResponse,
    recorded: StandinRequest,
    status: number,
    body: unknown,
  ) => {
    recorded.status = status;
    res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(body));
  };
  const fails = (res: http.ServerResponse, recorded: StandinRequest, error: AirtableError) =>
    answer(res, recorded, error.status, { error: { type: error.type, message: error.message } });

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://airtable.test");
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const recorded: StandinRequest = {
      method: req.method ?? "",
      path: url.pathname,
      query: url.searchParams,
      token: bearer,
    };
    requests.push(recorded);
    if (failure?.after) {
      failure.after--;
    } else if (failure !== undefined) {
      const { status, message } = failure;
      if (failure.times !== undefined && --failure.times <= 0) failure = undefined;
      return answer(res, recorded, status, failureBody(status, message));
    }
    if (bearer === undefined || !options.authorize(bearer)) {
      return fails(
        res,
        recorded,
        new AirtableError(401, "AUTHENTICATION_REQUIRED", "Authentication required"),
      );
    }
    const notFound = () => answer(res, recorded, 404, { error: "NOT_FOUND" });
    if (req.method !== "GET") return notFound();
    const parts = url.pathname.split("/").slice(1).map(decodeURIComponent);
    try {
      if (url.pathname === "/v0/meta/whoami") {
        return answer(res, recorded, 200, {
          id: "usrStandin0000001",
          scopes: options.scopes ?? DEFAULT_SCOPES,
        });
      }
      if (
        parts.length === 5 &&
        parts[1] === "meta" &&
        parts[2] === "bases" &&
        parts[4] === "tables"
      ) {
        if (parts[3] !== options.baseId) return notFound();
        return answer(res, recorded, 200, { tables: tables.map(schemaOf) });
      }
      if (parts.length === 3 && parts[0] === "v0" && parts[1] !== "meta") {
        if (parts[1] !== options.baseId) return notFound();
        const table =
          tables.find((t) => t.id === parts[2]) ?? tables.find((t) => t.name === parts[2]);
        if (table === undefined) {
          throw new AirtableError(
            404,
            "TABLE_NOT_FOUND",
            `Could not find table ${parts[2]} in application ${options.baseId}`,
          );
        }
        return answer(res, recorded, 200, listRecords(table, url.searchParams));
      }
      return notFound();
    } catch (error) {
      if (!(error instanceof AirtableError)) throw error;
      return fails(res, recorded, error);
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  const routeOf = (path: string) =>
    path === "/v0/meta/whoami" ? "whoami" : path.startsWith("/v0/meta/") ? "tables" : "records";
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    requestsTo: (route) => requests.filter((request) => routeOf(request.path) === route),
    tables,
    fail: (next) => (failure = next === undefined ? undefined : { ...next }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Airtable's body for a forced status: 429 has its own shape. */
function failureBody(status: number, message: string | undefined): unknown {
  if (status === 429) {
    return {
      errors: [
        {
          error: "RATE_LIMIT_REACHED",
          message: message ?? "Rate limit exceeded. Please try again later",
        },
      ],
    };
  }
  const [type, fallback] = MESSAGES[status] ?? ["UNKNOWN_ERROR", "Something went wrong."];
  return { error: { type, message: message ?? fallback } };
}

/** A table as Get base schema answers it. */
function schemaOf(table: StandinTable) {
  return {
    id: table.id,
    name: table.name,
    primaryFieldId: table.fields[0]?.id,
    fields: table.fields.map((field) => {
      const options = table.options.get(field.name);
      return options === undefined ? { ...field } : { ...field, options };
    }),
    views: [{ id: `viw${table.id.slice(3)}`, name: "Grid view", type: "grid" }],
  };
}
