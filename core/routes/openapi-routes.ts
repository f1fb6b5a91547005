/**
 * `GET /v1/openapi.json`: the OpenAPI 3.1 document of the route table, made once on the first
 * request (the table does not change while the service runs), without auth: it describes the
 * API, and holds no site's or workspace's data. It is answered as it is, not in the envelope, so
 * tools (renderers, client generators, validators) read it by its URL. docs/openapi.json is the same document, committed
 * (`npm run gen:openapi`; `npm test` fails when it is stale).
 */
import { openApiDocument } from "./table/openapi.ts";
import type { Route } from "./table/route.ts";

import { packageVersion } from "../util/package-version.ts";

/** The document of `routes` as the service serves it. */
export const serviceDocument = (routes: readonly Route[]) =>
  openApiDocument(routes, packageVersion());

export function openApiRoute(routes: () => readonly Route[]): Route {
  let document: Record<string, unknown> | undefined;
  return {
    id: "getOpenApiDocument",
    method: "get",
    path: "/v1/openapi.json",
    summary: "This document: the API's OpenAPI 3.1 description",
    tags: ["meta"],
    access: ["none"],
    response: {
      status: 200,
      description: "The OpenAPI document, as it is (not in the envelope), for tools to read",
      schema: { type: "object", required: ["openapi", "info", "paths"] },
      bare: true,
    },
    errors: [],
    async handle() {
      document ??= serviceDocument(routes());
      return { data: document };
    },
  };
}
