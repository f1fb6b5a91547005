/**
 * The webhook endpoint bodies without a server: the schema's event types are the subscribable
 * ones, and the URL rules a setting decides.
 */
import { expect } from "chai";
import { isServiceError, type ServiceError } from "../errors.ts";
import { schemaFor } from "../validation/schema-validator.ts";
import { checkedCreate, checkedPatch, urlProblem } from "./endpoint-input.ts";
import { SUBSCRIBABLE_EVENT_TYPES } from "./event-types.ts";

const strict = { allowPrivateNetworks: false };
const open = { allowPrivateNetworks: true };

/** The ServiceError `check` throws. */
function refusal(check: () => unknown): ServiceError {
  try {
    check();
  } catch (error) {
    if (isServiceError(error)) return error;
    throw error;
  }
  throw new Error("nothing was refused");
}

describe("webhook endpoint input", () => {
  it("lists exactly the subscribable event types in the schema", () => {
    const defs = schemaFor("webhook-create").$defs as Record<string, { enum?: string[] }>;
    expect(defs.WebhookEventType?.enum).to.deep.equal([...SUBSCRIBABLE_EVENT_TYPES]);
  });

  describe("urlProblem", () => {
    for (const url of [
      "https://crm.example/hooks",
      "HTTPS://CRM.example:8443/hooks?x=1",
      "https://93.184.216.34/in",
    ]) {
      it(`accepts ${url}`, () => {
        expect(urlProblem(url, strict)).to.equal(undefined);
      });
    }

    for (const url of ["http://localhost:3000/in", "http://127.0.0.1/in", "http://[::1]:8080/in"]) {
      it(`accepts ${url} only where private networks are allowed`, () => {
        expect(urlProblem(url, open)).to.equal(undefined);
        expect(urlProblem(url, strict)).to.match(/^url must use https:\/\//);
      });
    }

    for (const [url, problem] of [
      ["http://crm.example/in", /^url must use https:\/\//],
      ["http://10.0.0.5/in", /^url must use https:\/\//],
      ["http://localhost.evil.example/in", /^url must use https:\/\//],
      ["https://user:pw@crm.example/in", /^url must not hold a user name or password/],
      ["https://user@crm.example/in", /^url must not hold a user name or password/],
      ["https://crm.example/in#top", /^url must not have a #fragment$/],
      ["https://crm.example/in#", /^url must not have a #fragment$/],
      ["https://crm.example/a b", /^url must not hold spaces or control characters$/],
      [" https://crm.example/in", /^url must not hold spaces or control characters$/],
      ["https://crm.example/\tin", /^url must not hold spaces or control characters$/],
      ["https://", /^url must be an absolute URL/],
      ["https://exa mple.com/", /^url must not hold spaces/],
      ["https://[::1/", /^url must be an absolute URL/],
    ] as const) {
      it(`refuses ${JSON.stringify(url)}`, () => {
        expect(urlProblem(url, open)).to.match(problem);
      });
    }
  });

  describe("checkedCreate", () => {
    it("returns the body as sent", () => {
      const body = { url: "https://crm.example/in", events: ["lead.captured"], site_ids: null };
      expect(checkedCreate(body, strict)).to.deep.equal(body);
    });

    it("names an unknown event type and its value", () => {
      const error = refusal(() =>
        checkedCreate({ url: "https://crm.example/in", events: ["lead.captured", "x.y"] }, strict),
      );
      expect(error.code).to.equal("invalid_request");
      expect(error.details).to.deep.include({ field: "events.1", value: "x.y" });
      expect(error.message).to.equal(
        'events.1 is "x.y", which is not an event type a webhook can subscribe to ' +
          `(${SUBSCRIBABLE_EVENT_TYPES.join(", ")})`,
      );
    });

    it("lists a URL problem beside the schema's", () => {
      const error = refusal(() => checkedCreate({ url: "http://crm.example", events: [] }, strict));
      expect((error.details.errors as { field: string }[]).map((e) => e.field)).to.deep.equal([
        "events",
        "url",
      ]);
    });
  });

  describe("checkedPatch", () => {
    it("names the body when it has no field", () => {
      const error = refusal(() => checkedPatch({}, strict));
      expect(error.details.field).to.equal("body");
      expect(error.message).to.equal("The body must have at least 1 field");
    });
  });
});
