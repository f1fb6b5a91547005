/**
 * What the validateBody tests share: the ServiceError a refused body gives, checked as a 400 that
 * names the field, and the smallest valid site.
 */
import { expect } from "chai";
import { httpStatus } from "../../core/http/error-status.ts";
import type { ServiceError } from "../../core/errors.ts";
import { refusalOf } from "./thrown.ts";
import { validateBody, type SchemaName } from "../../core/validation/schema-validator.ts";

/** Runs validateBody expecting a ServiceError and returns it. */
export const rejection = (name: SchemaName, data: unknown): ServiceError =>
  refusalOf(() => validateBody(name, data));

export function expectInvalid(name: SchemaName, data: unknown, field: string): ServiceError {
  const error = rejection(name, data);
  expect(error.code).to.equal("invalid_request");
  expect(httpStatus(error)).to.equal(400);
  expect(error.details.field).to.equal(field);
  return error;
}

export const minimalSite = () => ({
  business_name: "Acme Dental",
  business_description: "Family dental clinic.",
  domain: "acmedental.example.com",
});
