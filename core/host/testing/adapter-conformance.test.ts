import { expect } from "chai";
import type { DataAdapter } from "../plugin.ts";
import type { CollectionSpec } from "../../search/search-types.ts";
import {
  adapterConformanceCases,
  conformanceCollection,
  type ConformanceSubject,
} from "./adapter-conformance-cases.ts";
import { CONFORMANCE_DATASET } from "./conformance-dataset.ts";
import { describeAdapterConformance, type ConformanceRunner } from "./adapter-conformance.ts";

/** An adapter that returns the whole dataset whatever it is asked: most cases must catch it. */
const careless: DataAdapter = {
  async search(_collection: CollectionSpec, query) {
    return {
      success: true,
      total: CONFORMANCE_DATASET.length,
      items: CONFORMANCE_DATASET.slice(0, query.limit).map((p) => ({ ...p })),
    };
  },
};

describe("the adapter conformance kit", () => {
  it("fails an adapter that ignores filters, text, sort and the failing backend", async () => {
    const subject: ConformanceSubject = {
      adapter: careless,
      collection: conformanceCollection("products"),
      failing: { adapter: careless, collection: conformanceCollection("products") },
    };
    const failed: string[] = [];
    for (const test of adapterConformanceCases()) {
      await test.run(subject).catch(() => failed.push(test.title));
    }
    expect(failed).to.include.members([
      "eq on text",
      "neq",
      "contains takes % literally",
      "in",
      "free text matches any searchable field, case-insensitive",
      "sort descending",
      "a failing backend is 422 adapter_error",
    ]);
    // The first case only checks shape and counts, which this adapter gets right.
    expect(failed).not.to.include("an unknown field is refused before the backend is asked");
  });

  it("declares its cases with the runner it is given, as node:test needs", () => {
    const declared: string[] = [];
    const runner: ConformanceRunner = {
      describe: (title, body) => {
        declared.push(title);
        body();
      },
      it: (title) => declared.push(title),
      before: () => undefined,
      after: () => undefined,
    };
    describeAdapterConformance(
      "given runner",
      async () => ({}) as ConformanceSubject,
      undefined,
      runner,
    );
    expect(declared[0]).to.equal("adapter conformance: given runner");
    expect(declared.slice(1)).to.deep.equal(adapterConformanceCases().map((test) => test.title));
  });
});
