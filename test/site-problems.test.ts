/**
 * Every problem of a site change in one answer, on each of the three databases (a domain
 * conflict is a fact of the store): the shape (400), the business rules (422) and the domains
 * other sites of the workspace hold (409), listed together in `details.errors`, the status that
 * of the most basic kind present. Nothing is written.
 */
import { expect } from "chai";
import request from "supertest";
import type { Response } from "supertest";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { startTestService, type TestService } from "./helpers/test-service.ts";

const site = (domain: string) => ({
  business_name: "Bright Smiles Dental",
  business_description: "Family dentistry",
  domain,
  industry: "dental",
});

/** One entry of `details.errors`. */
interface FieldProblem {
  field: string;
  message: string;
  code: string;
  [detail: string]: unknown;
}

/** The refusal's status, code and first field, and its problems by field. */
function refusal(res: Response, status: number, code: string, field: string) {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body.error.code).to.equal(code);
  expect(res.body.error.details.field).to.equal(field);
  const problems = res.body.error.details.errors as FieldProblem[];
  return new Map(problems.map((problem) => [problem.field, problem]));
}

/** The fields of the refusal's problems, in order. */
const fieldsOf = (res: Response) =>
  (res.body.error.details.errors as FieldProblem[]).map((problem) => problem.field);

for (const target of databaseTargets) {
  describe(`every problem of a site change at once, on ${target.label}`, function () {
    let database: TestDatabase | undefined;
    let service: TestService;
    let auth: { Authorization: string };
    /** The site of another test's workspace that holds taken.example and www.taken.example. */
    let owner: string;
    /** The site each test changes. */
    let mine: string;

    const api = () => request(service.server);
    const version = async () => (await service.store.sites.get(mine))!.version;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      service = await startTestService(database.url);
    });
    beforeEach(async () => {
      const workspace = await service.workspace();
      auth = { Authorization: `Bearer ${await service.key(workspace)}` };
      const taken = await api()
        .post("/v1/sites")
        .set(auth)
        .send({ ...site("taken.example"), additional_domains: ["www.taken.example"] })
        .expect(201);
      owner = taken.body.data.site_id;
      mine = (await api().post("/v1/sites").set(auth).send(site("mine.example")).expect(201)).body
        .data.site_id;
    });
    after(async () => {
      await service?.stop();
      await database?.drop();
    });

    describe("PATCH with a bad voice, a bad time zone and a domain another site has", () => {
      let res: Response;
      beforeEach(async () => {
        res = await api()
          .patch(`/v1/sites/${mine}`)
          .set(auth)
          .send({ voice: "bogus", timezone: "Mars/Olympus", domain: "Taken.Example" });
      });

      it("is 400, the time zone (a shape problem) first", () => {
        refusal(res, 400, "invalid_request", "timezone");
      });

      it("lists all three, each once, with its own code", () => {
        expect(fieldsOf(res)).to.deep.equal(["timezone", "voice", "domain"]);
        const problems = refusal(res, 400, "invalid_request", "timezone");
        expect(problems.get("timezone")?.code).to.equal("invalid_request");
        expect(problems.get("voice")?.code).to.equal("validation_failed");
        expect(problems.get("domain")?.code).to.equal("conflict");
      });

      it("says what is wrong with each, naming its field once", () => {
        const problems = refusal(res, 400, "invalid_request", "timezone");
        expect(problems.get("timezone")?.message).to.match(/^timezone must be /);
        expect(problems.get("voice")?.message).to.contain('"bogus" is not a voice');
        expect(problems.get("domain")?.message).to.equal(
          `Domain taken.example already belongs to site '${owner}' of this workspace`,
        );
        for (const { field, message } of problems.values()) {
          expect(message.toLowerCase(), field).not.to.contain(`${field} ${field}`);
        }
      });

      it("gives the conflict's domain and owner in its entry", () => {
        const problems = refusal(res, 400, "invalid_request", "timezone");
        expect(problems.get("domain")).to.include({ domain: "taken.example", site_id: owner });
      });

      it("changes nothing", async () => {
        expect(await version()).to.equal(1);
      });
    });

    it("422 for a bad voice beside a taken domain, the voice first", async () => {
      const res = await api()
        .patch(`/v1/sites/${mine}`)
        .set(auth)
        .send({ voice: "bogus", additional_domains: ["www.taken.example"] });
      refusal(res, 422, "validation_failed", "voice");
      expect(fieldsOf(res)).to.deep.equal(["voice", "additional_domains.0"]);
      expect(res.body.error.details.voices).to.include("alloy");
    });

    it("409 naming every taken domain, the first as before in details", async () => {
      const res = await api()
        .patch(`/v1/sites/${mine}`)
        .set(auth)
        .send({ domain: "taken.example", additional_domains: ["ok.example", "www.taken.example"] });
      refusal(res, 409, "conflict", "domain");
      expect(res.body.error.details).to.include({ domain: "taken.example", site_id: owner });
      expect(fieldsOf(res)).to.deep.equal(["domain", "additional_domains.1"]);
    });

    it("skips the domain lookup of a domain that is not a host name, keeping the other problems", async () => {
      const res = await api()
        .patch(`/v1/sites/${mine}`)
        .set(auth)
        .send({ domain: "not a host", voice: "bogus", additional_domains: ["www.taken.example"] });
      const problems = refusal(res, 400, "invalid_request", "domain");
      expect(fieldsOf(res)).to.deep.equal(["domain", "voice", "additional_domains.0"]);
      expect(problems.get("domain")?.code).to.equal("invalid_request");
    });

    it("skips the rule of a field whose shape is wrong, and only that one", async () => {
      const res = await api()
        .patch(`/v1/sites/${mine}`)
        .set(auth)
        .send({ voice: 7, industry: "veterinary" });
      refusal(res, 400, "invalid_request", "voice");
      expect(fieldsOf(res)).to.deep.equal(["voice", "industry"]);
    });

    it("POST: a bad time zone, an unknown industry and a taken additional domain at once", async () => {
      const res = await api()
        .post("/v1/sites")
        .set(auth)
        .send({
          ...site("new.example"),
          timezone: "Mars/Olympus",
          industry: "veterinary",
          additional_domains: ["www.taken.example"],
        });
      refusal(res, 400, "invalid_request", "timezone");
      expect(fieldsOf(res)).to.deep.equal(["timezone", "industry", "additional_domains.0"]);
    });

    it("PUT as YAML: a bad voice and a taken domain at once", async () => {
      const res = await api()
        .put(`/v1/sites/${mine}`)
        .set(auth)
        .set("Content-Type", "application/yaml")
        .send(
          "business_name: Mine\nbusiness_description: ''\ndomain: taken.example\nvoice: bogus\n",
        );
      refusal(res, 422, "validation_failed", "voice");
      expect(fieldsOf(res)).to.deep.equal(["voice", "domain"]);
      expect(await version()).to.equal(1);
    });

    it("PUT ?dry_run=true plans with the same answer", async () => {
      const res = await api()
        .put(`/v1/sites/${mine}?dry_run=true`)
        .set(auth)
        .send({ ...site("taken.example"), timezone: "Mars/Olympus", voice: "bogus" });
      refusal(res, 400, "invalid_request", "timezone");
      expect(fieldsOf(res)).to.deep.equal(["timezone", "voice", "domain"]);
    });
  });
}
