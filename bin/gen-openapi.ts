/**
 * Writes docs/openapi.json, the OpenAPI document of the route table, as the service serves it at
 * `GET /v1/openapi.json`. The table is the source; the document follows it.
 *
 *   node --import tsx bin/gen-openapi.ts          write it when it changed
 *   node --import tsx bin/gen-openapi.ts --check  write nothing; exit 1 when it is stale
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import prettier from "prettier";
import { apiRoutes, type ApiRouteParts } from "../core/routes/api-routes.ts";
import { serviceDocument } from "../core/routes/openapi-routes.ts";

const file = fileURLToPath(new URL("../docs/openapi.json", import.meta.url));
// The declarations only: no handler runs, so the routes need none of the service's parts.
const document = serviceDocument(apiRoutes({} as ApiRouteParts));
const options = (await prettier.resolveConfig(file)) ?? {};
const text = await prettier.format(JSON.stringify(document), { ...options, filepath: file });
const current = await readFile(file, "utf8").catch(() => "");

if (process.argv.includes("--check")) {
  if (current !== text) {
    console.error("docs/openapi.json is stale: run npm run gen:openapi and commit it");
    process.exit(1);
  }
  console.log("docs/openapi.json is current");
} else if (current !== text) {
  await writeFile(file, text);
  console.log("wrote docs/openapi.json");
}
