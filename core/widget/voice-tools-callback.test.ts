/**
 * request_callback, the voice tool that asks for a person: offered with lead capture, after
 * submit_lead; a name, a phone or an email, and a one-line reason within the lead endpoint's
 * bounds (schemas/lead-create.schema.json).
 */
import { expect } from "chai";
import {
  buildVoiceTools,
  REQUEST_CALLBACK,
  SCROLL_TO,
  SEARCH_DATABASE,
  SUBMIT_LEAD,
} from "./voice-tools.ts";
import { compile, exampleSites, schemaOf, toolNamed } from "./voice-tools-fixtures.ts";

describe("voice tools: request_callback", () => {
  const sites = exampleSites();
  const callback = () => toolNamed(buildVoiceTools(sites.dental), REQUEST_CALLBACK);
  const valid = (args: object) => compile(callback())(args);

  it("is offered after submit_lead when lead capture is on", () => {
    expect(buildVoiceTools(sites.dental).map((t) => t.name)).to.deep.equal([
      SEARCH_DATABASE,
      SUBMIT_LEAD,
      REQUEST_CALLBACK,
      SCROLL_TO,
    ]);
  });

  it("is not offered when lead capture is off", () => {
    expect(buildVoiceTools(sites.shop).map((t) => t.name)).to.not.include(REQUEST_CALLBACK);
  });

  it("takes a name, a phone, an email and a reason, the name and the reason required", () => {
    const { properties, required } = schemaOf(callback());
    expect(Object.keys(properties)).to.deep.equal(["name", "phone", "email", "reason"]);
    expect(required).to.deep.equal(["name", "reason"]);
  });

  it("bounds each field as the lead endpoint does", () => {
    const { properties } = schemaOf(callback());
    expect(properties.name).to.include({ maxLength: 200 });
    expect(properties.phone).to.include({ maxLength: 50 });
    expect(properties.email).to.include({ maxLength: 320 });
    expect(properties.reason).to.include({ minLength: 1, maxLength: 200 });
  });

  it("says an email or a phone is required, and when to offer it", () => {
    const { description } = callback();
    expect(description).to.match(/email or a phone/);
    expect(description).to.match(/person/);
  });

  it("takes a name, a phone and a reason", () => {
    expect(valid({ name: "Ana", phone: "+1 503 555 0100", reason: "A refund" })).to.equal(true);
  });

  it("refuses a call without a reason", () => {
    expect(valid({ name: "Ana", phone: "+1 503 555 0100" })).to.equal(false);
  });

  it("refuses a reason over 200 characters", () => {
    expect(valid({ name: "Ana", email: "a@example.com", reason: "x".repeat(201) })).to.equal(false);
  });

  it("refuses a field it does not ask for", () => {
    expect(valid({ name: "Ana", email: "a@example.com", reason: "A refund", turns: [] })).to.equal(
      false,
    );
  });
});
