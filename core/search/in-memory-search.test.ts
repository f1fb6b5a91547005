import { expect } from "chai";
import {
  adapterConformanceCases,
  CONFORMANCE_DATASET,
  conformanceCollection,
} from "../host/testing/index.ts";
import {
  compareValues,
  fieldTypeOf,
  inferFields,
  matchesFilter,
  searchInMemory,
  type InMemoryQuery,
} from "./in-memory-search.ts";
import type { Filter } from "./search-types.ts";

const base: InMemoryQuery = { searchFields: [], filters: [], limit: 10 };
const ids = (items: Record<string, unknown>[]) => items.map((item) => item.id);

describe("in-memory search", () => {
  describe("passes the adapter conformance cases as a bare adapter", () => {
    const collection = conformanceCollection("products");
    const records: Record<string, unknown>[] = CONFORMANCE_DATASET.map((r) => ({ ...r }));
    const adapter = {
      search: async (_: unknown, query: InMemoryQuery) => ({
        success: true as const,
        ...searchInMemory(records, query),
      }),
      introspect: async () => ({
        name: "products",
        source: "products",
        recordCount: CONFORMANCE_DATASET.length,
        fields: inferFields(records),
      }),
    };
    const failing = {
      adapter: { search: async () => ({ success: false as const, error: "down" }) },
      collection,
    };
    for (const test of adapterConformanceCases()) {
      it(test.title, () => test.run({ adapter, collection, failing }));
    }
  });

  it("compares numbers that arrive as strings numerically (DRF decimals)", () => {
    const records = [
      { id: 1, price: "1000.00" },
      { id: 2, price: "99.50" },
      { id: 3, price: 250 },
    ];
    const gt = (value: number | string): Filter => ({ field: "price", operator: "gt", value });
    expect(ids(searchInMemory(records, { ...base, filters: [gt(100)] }).items)).to.deep.equal([
      1, 3,
    ]);
    expect(ids(searchInMemory(records, { ...base, filters: [gt("100")] }).items)).to.deep.equal([
      1, 3,
    ]);
    const eq: Filter = { field: "price", operator: "eq", value: 99.5 };
    expect(matchesFilter(records[1] as Record<string, unknown>, eq)).to.equal(true);
    const sorted = searchInMemory(records, { ...base, sort: { field: "price", direction: "asc" } });
    expect(ids(sorted.items)).to.deep.equal([2, 3, 1]);
  });

  describe("matches no filter on a missing or null field, not even neq", () => {
    const record = { id: 1, color: null };
    for (const operator of ["eq", "neq", "gt", "contains"] as const) {
      it(`${operator} on a null field matches nothing`, () => {
        expect(matchesFilter(record, { field: "color", operator, value: "x" }), operator).to.equal(
          false,
        );
      });

      it(`${operator} on a missing field matches nothing`, () => {
        expect(matchesFilter(record, { field: "size", operator, value: "x" }), operator).to.equal(
          false,
        );
      });
    }

    it("neq on an inherited property (toString) matches nothing", () => {
      const inherited: Filter = { field: "toString", operator: "neq", value: "" };
      expect(matchesFilter({ constructor: "x" }, inherited)).to.equal(false);
    });
  });

  it("sorts stably, missing values last in both directions", () => {
    const records = [
      { id: 1, rank: 2 },
      { id: 2 },
      { id: 3, rank: 1 },
      { id: 4, rank: 2 },
      { id: 5, rank: null },
    ];
    const sortBy = (direction: "asc" | "desc") =>
      ids(searchInMemory(records, { ...base, sort: { field: "rank", direction } }).items);
    expect(sortBy("asc")).to.deep.equal([3, 1, 4, 2, 5]);
    expect(sortBy("desc")).to.deep.equal([1, 4, 3, 2, 5]);
  });

  describe("ties of the sort", () => {
    /** In the backend's order; 6 and 5 are alike in every returned field, 3 has no name. */
    const tied = [
      { id: 1, name: "Pear", rank: 2 },
      { id: 2, name: "Apple", rank: 1 },
      { id: 3, rank: 2 },
      { id: 4, name: "Fig", rank: 2 },
      { id: 6, name: "Kiwi", rank: 2 },
      { id: 5, name: "Kiwi", rank: 2 },
    ];
    const fields = ["name", "rank"];

    it("orders ties by the returned fields ascending, missing last, then the backend's order", () => {
      const found = searchInMemory(tied, {
        ...base,
        fields,
        sort: { field: "rank", direction: "asc" },
      });
      expect(ids(found.items)).to.deep.equal([2, 4, 6, 5, 1, 3]);
    });

    it("orders ties by the returned fields ascending in a descending sort too", () => {
      const found = searchInMemory(tied, {
        ...base,
        fields,
        sort: { field: "rank", direction: "desc" },
      });
      expect(ids(found.items)).to.deep.equal([4, 6, 5, 1, 3, 2]);
    });

    it("keeps the backend's order for a search without a sort", () => {
      expect(ids(searchInMemory(tied, { ...base, fields }).items)).to.deep.equal([
        1, 2, 3, 4, 6, 5,
      ]);
    });
  });

  it("orders text by locale with digit runs as numbers, and ISO dates as strings", () => {
    expect(compareValues("Item 2", "Item 10")).to.be.below(0);
    expect(compareValues("apple", "Banana")).to.be.below(0);
    expect(compareValues("2023-10-01", "2023-02-01")).to.be.above(0);
    expect(compareValues(false, true)).to.be.below(0);
  });

  it("matches free text in arrays and numbers, and counts every match", () => {
    const records = [
      { id: 1, tags: ["Vegan", "spicy"], code: 1234 },
      { id: 2, tags: ["mild"], code: 99 },
      { id: 3, tags: [], code: 234 },
    ];
    const found = searchInMemory(records, {
      ...base,
      text: "VEG",
      searchFields: ["tags", "code"],
    });
    expect(ids(found.items)).to.deep.equal([1]);
    const digits = searchInMemory(records, {
      ...base,
      text: "234",
      searchFields: ["code"],
      limit: 1,
    });
    expect(digits.total).to.equal(2);
    expect(digits.items).to.have.length(1);
  });

  it("infers each field's type and a short sample", () => {
    expect(fieldTypeOf("2024-03-01T10:00:00Z")).to.equal("date");
    expect(fieldTypeOf("2024-13-45")).to.equal("string");
    expect(fieldTypeOf(null)).to.equal("unknown");
    const fields = inferFields([
      { a: null, b: "2024-01-01", c: [1], d: { x: 1 }, e: "x".repeat(500) },
      { a: null, b: "soon", c: [2], d: { x: 2 }, e: "y", f: 1 },
      { f: "one" },
    ]);
    expect(fields.map(({ name, type }) => [name, type])).to.deep.equal([
      ["a", "unknown"],
      ["b", "string"],
      ["c", "array"],
      ["d", "object"],
      ["e", "string"],
      ["f", "unknown"],
    ]);
    expect(fields[0]).not.to.have.property("sample");
    expect(fields[2]?.sample).to.deep.equal([1]);
    expect(String(fields[4]?.sample).length).to.be.below(200);
  });
});
