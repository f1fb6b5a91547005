/** `/v1/sites`: list, create, read, patch and delete, with API-key scopes sites:read / sites:write. */
import { Router, type Request } from "express";
import { principalOf, type apiKeyAuth } from "../http/api-key-auth.ts";
import { BODY_LIMIT_API, jsonBody, noYamlBody, yamlBody } from "../http/body-parsers.ts";
import { sendData } from "../http/envelope.ts";
import { errors } from "../errors.ts";
import { decodeCursor, encodeCursor, parseLimit } from "../http/pagination.ts";
import { queryParams } from "../http/query-params.ts";
import { isSiteCursor, type ChangeSource, type SiteService } from "../sites/site-service.ts";
import { migrateSiteFile, SchemaVersionError } from "../sites/yaml/schema-migrations.ts";
import { parseSiteFile } from "../sites/yaml/site-file.ts";

/** Where the sites API is mounted: its routes are below it, so other requests skip them at once. */
export const SITES_PATH = "/v1/sites";

export function sitesRoutes(sites: SiteService, requireKey: ReturnType<typeof apiKeyAuth>): Router {
  const router = Router();
  // JSON everywhere; YAML (a site file) only where a whole site is put, refused elsewhere.
  router.use(jsonBody(BODY_LIMIT_API));
  const readYaml = yamlBody(BODY_LIMIT_API);

  router.get("/", requireKey("sites:read"), async (req, res) => {
    const query = queryParams(req, ["limit", "cursor", "q"]);
    const limit = parseLimit(query.limit);
    const after = decodeCursor(query.cursor, isSiteCursor);
    const q = query.q;
    if (q !== undefined && q.length > 200)
      throw errors.invalidRequest("q must be at most 200 characters", { field: "q" });
    const page = await sites.list(principalOf(req), { limit, after, q });
    sendData(req, res, page.items, {
      meta: { next_cursor: page.next === undefined ? null : encodeCursor(page.next) },
    });
  });

  router.post("/", noYamlBody, requireKey("sites:write"), async (req, res) => {
    queryParams(req, []);
    const site = await sites.create(principalOf(req), req.body);
    sendData(req, res, site, { status: 201, meta: { version: site.version } });
  });

  router.get("/:id", requireKey("sites:read"), async (req, res) => {
    queryParams(req, []);
    const site = await sites.get(principalOf(req), req.params.id as string);
    sendData(req, res, site, { meta: { version: site.version } });
  });

  router.patch("/:id", noYamlBody, requireKey("sites:write"), async (req, res) => {
    queryParams(req, []);
    const site = await sites.patch(principalOf(req), req.params.id as string, req.body);
    sendData(req, res, site, { meta: { version: site.version } });
  });

  router.delete("/:id", requireKey("sites:write"), async (req, res) => {
    queryParams(req, []);
    const siteId = req.params.id as string;
    await sites.delete(principalOf(req), siteId);
    sendData(req, res, { site_id: siteId, deleted: true });
  });

  router.put("/:id", readYaml, requireKey("sites:write"), async (req, res) => {
    const { body, source } = wholeSiteBody(req);
    const siteId = req.params.id as string;
    if (dryRun(req)) {
      sendData(req, res, await sites.plan(principalOf(req), siteId, body));
      return;
    }
    const { site, created, changed } = await sites.put(principalOf(req), siteId, body, source);
    sendData(req, res, site, {
      status: created ? 201 : 200,
      meta: { version: site.version, changed },
    });
  });

  router.get("/:id/versions", requireKey("sites:read"), async (req, res) => {
    const query = queryParams(req, ["limit", "cursor"]);
    const limit = parseLimit(query.limit);
    const before = decodeCursor(query.cursor, isVersionNumber);
    const page = await sites.versions(principalOf(req), req.params.id as string, { limit, before });
    sendData(req, res, page.items, {
      meta: { next_cursor: page.next === undefined ? null : encodeCursor(page.next) },
    });
  });

  router.get("/:id/versions/:n", requireKey("sites:read"), async (req, res) => {
    queryParams(req, []);
    const version = await sites.version(
      principalOf(req),
      req.params.id as string,
      versionParam(req),
    );
    sendData(req, res, version);
  });

  router.post("/:id/versions/:n/restore", requireKey("sites:write"), async (req, res) => {
    queryParams(req, []);
    const site = await sites.restore(principalOf(req), req.params.id as string, versionParam(req));
    sendData(req, res, site, { meta: { version: site.version } });
  });

  return router;
}

/** `?dry_run=true` plans a PUT without applying it. */
function dryRun(req: Request): boolean {
  const value = queryParams(req, ["dry_run"]).dry_run;
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  throw errors.invalidRequest("dry_run must be true or false", { field: "dry_run" });
}

const isVersionNumber = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) > 0;

function versionParam(req: Request): number {
  const raw = req.params.n as string;
  const version = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!isVersionNumber(version)) {
    throw errors.invalidRequest("The version must be a positive integer", { field: "n" });
  }
  return version;
}

/**
 * A whole site as JSON, or as YAML (`Content-Type: application/yaml`, bytes in a charset yamlBody
 * checked), which records source yaml.
 */
function wholeSiteBody(req: Request): { body: unknown; source: ChangeSource } {
  if (!Buffer.isBuffer(req.body)) return { body: req.body, source: "api" };
  const file = parseSiteFile(req.body, "request body");
  const problem = file.problems[0];
  if (problem !== undefined || file.data === undefined) {
    const fieldOf = (field: string | undefined) =>
      field === undefined || field === "" ? "body" : field;
    throw errors.invalidRequest(`YAML body: ${problem?.message ?? "not a site"}`, {
      field: fieldOf(problem?.field),
      line: problem?.line,
      column: problem?.column,
      errors: file.problems.map(({ field, message, line, column }) => ({
        field: fieldOf(field),
        message,
        line,
        column,
      })),
    });
  }
  try {
    return { body: migrateSiteFile(file.data), source: "yaml" };
  } catch (error) {
    if (error instanceof SchemaVersionError) {
      throw errors.invalidRequest(error.message, { field: "schema_version" });
    }
    throw error;
  }
}
