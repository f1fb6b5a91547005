/** What a call throws, for tests of refusals; the test fails when the call returns instead. */
import { expect } from "chai";
import { ServiceError } from "../../core/errors.ts";

export function thrownBy(action: () => unknown): Error {
  try {
    action();
  } catch (error) {
    expect(error).to.be.instanceOf(Error);
    return error as Error;
  }
  expect.fail("expected a throw, but the call returned");
}

/** The ServiceError `action` throws (the refusal the API would answer). */
export function refusalOf(action: () => unknown): ServiceError {
  const error = thrownBy(action);
  expect(error).to.be.instanceOf(ServiceError);
  return error as ServiceError;
}

/** The ServiceError `promise` rejects with; the test fails when it resolves instead. */
export async function refusalFrom(promise: Promise<unknown>): Promise<ServiceError> {
  let refused: unknown;
  await promise.then(
    () => expect.fail("expected a refusal, but the call resolved"),
    (error: unknown) => (refused = error),
  );
  expect(refused).to.be.instanceOf(ServiceError);
  return refused as ServiceError;
}
