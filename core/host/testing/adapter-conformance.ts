/**
 * The conformance suite for data adapters: the standard SearchParams cases (every operator, free
 * text, sort both ways and its ties, limit and totals, an unknown field, a failing backend,
 * introspection), run through the service's own search path against a backend that holds
 * CONFORMANCE_DATASET. The built-in adapters pass it; a third party runs it on theirs:
 *
 *   import { describeAdapterConformance } from "sitevoice/testing";
 *   describeAdapterConformance("my adapter", async () => ({ adapter, collection, failing }));
 *
 * It needs no test runner of its own: `adapterConformanceCases` (adapter-conformance-cases.ts)
 * returns plain async functions that throw on failure, and `describeAdapterConformance` hands
 * them to mocha's (or jest's) globals, or to the runner it is given: node:test has no globals,
 *
 *   import { after, before, describe, it } from "node:test";
 *   describeAdapterConformance("my adapter", setup, teardown, { describe, it, before, after });
 */
import { adapterConformanceCases, type ConformanceSubject } from "./adapter-conformance-cases.ts";

type Hook = (fn: () => Promise<void>) => void;
/** The test runner's functions: mocha's, jest's or node:test's. */
export interface ConformanceRunner {
  describe: (title: string, body: () => void) => void;
  it: (title: string, fn: () => Promise<void>) => void;
  before?: Hook;
  beforeAll?: Hook;
  after?: Hook;
  afterAll?: Hook;
}

/**
 * Declares the suite with `runner`, by default the test runner's globals (mocha or jest):
 * `setup` runs once before the cases, `teardown` once after.
 */
export function describeAdapterConformance(
  title: string,
  setup: () => Promise<ConformanceSubject>,
  teardown?: () => Promise<void>,
  runner: ConformanceRunner = globalThis as unknown as ConformanceRunner,
): void {
  const before = runner.before ?? runner.beforeAll;
  const after = runner.after ?? runner.afterAll;
  if (typeof runner.describe !== "function" || before === undefined || after === undefined) {
    throw new Error(
      "describeAdapterConformance needs mocha or jest globals, or node:test's functions as its runner",
    );
  }
  runner.describe(`adapter conformance: ${title}`, () => {
    let subject: ConformanceSubject | undefined;
    before(async () => {
      subject = await setup();
    });
    if (teardown) after(teardown);
    for (const test of adapterConformanceCases()) {
      runner.it(test.title, async () => {
        if (subject === undefined) throw new Error("setup did not finish");
        await test.run(subject);
      });
    }
  });
}
