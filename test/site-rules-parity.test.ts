/**
 * `sitevoice validate` and the API judge a site by one rule set: every file of the broken
 * fixtures and of the examples is checked by validate (as the CLI does, alone) and sent to the
 * API as a git pipeline sends it (`PUT /v1/sites/:id` with the file as YAML), and both give the
 * same verdict on the same fields.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import request from "supertest";
import { installedPlugins } from "./helpers/installed-plugins.ts";
import type { SiteRules } from "../core/sites/site-rules.ts";
import { validateSiteFiles } from "../core/sites/yaml/validate-sites.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));
const folders = ["test/fixtures/broken-sites", "sites"];
const files = folders.flatMap((folder) =>
  fs
    .readdirSync(path.join(repo, folder))
    .filter((name) => name.endsWith(".yaml"))
    .sort()
    .map((name) => path.join(folder, name)),
);
const sqlite = databaseTargets.find((t) => t.client === "sqlite")!;

/** A problem's field as both sides name a problem with the whole file. */
const fieldOf = (field: string) => (field === "" ? "body" : field);

describe("sitevoice validate and the API agree", function () {
  let database: TestDatabase | undefined;
  let service: TestService;
  let rules: SiteRules;

  before(async function () {
    database = await createTestDatabase(sqlite);
    if (database === undefined) missing(this, sqlite.label);
    service = await startTestService(database.url);
    // The rules the CLI builds from the same (default) settings as the service.
    rules = (await installedPlugins({})).rules;
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("checks every broken fixture and every example", () => {
    expect(files.filter((f) => f.startsWith("test/"))).to.have.length.at.least(19);
    expect(files.filter((f) => f.startsWith("sites/"))).to.have.length(3);
  });

  for (const file of files) {
    it(`on ${file}`, async () => {
      const validated = await validateSiteFiles([file], { rules, cwd: repo });
      const byValidate = [...new Set(validated.problems.map((p) => fieldOf(p.field)))].sort();

      // Each file in a workspace of its own: a refusal must come from the file, not a neighbour.
      const workspace = await service.workspace();
      const key = await service.key(workspace);
      const siteId = validated.files[0]?.data?.site_id;
      const id = typeof siteId === "string" ? siteId : path.basename(file, ".yaml");
      const res = await request(service.server)
        .put(`/v1/sites/${encodeURIComponent(id)}`)
        .set("Authorization", `Bearer ${key}`)
        .set("Content-Type", "application/yaml")
        .send(fs.readFileSync(path.join(repo, file)));
      const byApi =
        res.status < 300
          ? []
          : [
              ...new Set(
                (
                  (res.body.error.details.errors as { field: string }[] | undefined) ?? [
                    { field: res.body.error.details.field as string },
                  ]
                ).map((e) => fieldOf(e.field)),
              ),
            ].sort();

      // Site ids are global: an accepted file's site goes again, so the next test starts clean.
      if (res.status < 300) {
        await request(service.server)
          .delete(`/v1/sites/${encodeURIComponent(id)}`)
          .set("Authorization", `Bearer ${key}`)
          .expect(200);
      }
      expect(res.status >= 400, `API ${res.status} ${JSON.stringify(res.body.error)}`).to.equal(
        byValidate.length > 0,
      );
      expect(byApi, "fields named").to.deep.equal(byValidate);
    });
  }
});
