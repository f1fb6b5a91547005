/**
 * The standard cases every data adapter must pass (every operator, free text, sort both ways and
 * its ties, limit and totals, an unknown field, a failing backend, introspection), as plain async
 * functions that throw on failure, run through the service's own search path against a backend
 * that holds CONFORMANCE_DATASET. Apart from the runner (adapter-conformance.ts) so that a case
 * is added here without touching how a test runner is driven.
 */
import assert from "node:assert/strict";
import { isServiceError } from "../../errors.ts";
import { httpStatus } from "../../http/error-status.ts";
import { checkSearch } from "../../search/check-search.ts";
import { runSearch, type QueryResult } from "../../search/run-search.ts";
import type { AdapterQuery, CollectionSpec, SearchParams } from "../../search/search-types.ts";
import type { DataAdapter } from "../plugin.ts";
import { CONFORMANCE_DATASET, CONFORMANCE_FIELDS } from "./conformance-dataset.ts";

/** What a test of an adapter provides. */
export interface ConformanceSubject {
  /** An adapter whose backend holds CONFORMANCE_DATASET, read through `collection`. */
  adapter: DataAdapter;
  /** CONFORMANCE_FIELDS with the adapter's `source` (see conformanceCollection). */
  collection: CollectionSpec;
  /** An adapter and collection whose backend fails every call (down, refusing, broken). */
  failing: { adapter: DataAdapter; collection: CollectionSpec };
}

export interface ConformanceCase {
  title: string;
  run(subject: ConformanceSubject): Promise<void>;
}

/** The conformance collection read from `source`. */
export const conformanceCollection = (source: string, name = "products"): CollectionSpec => ({
  name,
  source,
  searchable_fields: [...CONFORMANCE_FIELDS.searchable_fields],
  filterable_fields: [...CONFORMANCE_FIELDS.filterable_fields],
  display_fields: [...CONFORMANCE_FIELDS.display_fields],
});

/**
 * A checked query over the conformance collection as the service hands it to `search`: no
 * filters, limit 10, the display fields; `overrides` change any part. For an adapter's own tests.
 */
export const conformanceQuery = (overrides: Partial<AdapterQuery> = {}): AdapterQuery => ({
  searchFields: [...CONFORMANCE_FIELDS.searchable_fields],
  filters: [],
  limit: 10,
  fields: [...CONFORMANCE_FIELDS.display_fields],
  ...overrides,
});

const search = async (subject: ConformanceSubject, params: Omit<SearchParams, "collection">) =>
  runSearch(
    subject.adapter,
    subject.collection,
    checkSearch(subject.collection, { collection: subject.collection.name, ...params }),
  );

const ids = (result: QueryResult) => result.items.map((item) => Number(item.id));
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

/** A case whose matches are `expected` (in any order), all returned, total counted. */
function matches(
  title: string,
  params: Omit<SearchParams, "collection">,
  expected: number[],
): ConformanceCase {
  return {
    title,
    async run(subject) {
      const result = await search(subject, params);
      assert.deepEqual(sorted(ids(result)), sorted(expected), `${title}: the ids found`);
      assert.equal(result.total, expected.length, `${title}: total`);
      assert.equal(result.returned, expected.length, `${title}: returned`);
    },
  };
}

/** A case whose items come in exactly the order `expected`. */
function ordered(
  title: string,
  params: Omit<SearchParams, "collection">,
  expected: number[],
  total: number,
): ConformanceCase {
  return {
    title,
    async run(subject) {
      const result = await search(subject, params);
      assert.deepEqual(ids(result), expected, `${title}: the ids in order`);
      assert.equal(result.total, total, `${title}: total`);
    },
  };
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; status: number }> {
  try {
    await promise;
  } catch (error) {
    if (isServiceError(error)) return { code: error.code, status: httpStatus(error) };
    throw error;
  }
  assert.fail("expected the search to be refused");
}

export function adapterConformanceCases(): ConformanceCase[] {
  return [
    {
      title: "returns the display fields only, at most 10 items, and the total",
      async run(subject) {
        const result = await search(subject, {});
        assert.equal(result.total, CONFORMANCE_DATASET.length);
        assert.equal(result.returned, 10);
        for (const item of result.items) {
          assert.deepEqual(
            Object.keys(item).sort(),
            [...CONFORMANCE_FIELDS.display_fields].sort(),
            "item fields",
          );
        }
        const oslo = result.items.find((item) => Number(item.id) === 1);
        if (oslo !== undefined) {
          assert.equal(oslo.name, "Oslo Sofa");
          assert.equal(Number(oslo.price), 799);
        }
      },
    },
    matches(
      "eq on text",
      { filters: [{ field: "color", operator: "eq", value: "blue" }] },
      [1, 3, 6, 10],
    ),
    matches(
      "eq on a boolean",
      { filters: [{ field: "in_stock", operator: "eq", value: false }] },
      [2, 6, 9, 12],
    ),
    matches("eq on a number", { filters: [{ field: "price", operator: "eq", value: 349 }] }, [3]),
    matches(
      "neq",
      { filters: [{ field: "category", operator: "neq", value: "sofas" }] },
      [3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    ),
    matches("gt", { filters: [{ field: "price", operator: "gt", value: 799 }] }, [5, 12]),
    matches("gte", { filters: [{ field: "price", operator: "gte", value: 799 }] }, [1, 5, 12]),
    matches("lt", { filters: [{ field: "price", operator: "lt", value: 99 }] }, [10]),
    matches("lte", { filters: [{ field: "price", operator: "lte", value: 99 }] }, [6, 10]),
    matches(
      "gte on a date",
      { filters: [{ field: "released_on", operator: "gte", value: "2024-01-01" }] },
      [3, 6, 10],
    ),
    matches(
      "contains, case-insensitive",
      { filters: [{ field: "category", operator: "contains", value: "TAB" }] },
      [5, 6],
    ),
    matches(
      "contains takes % literally",
      { filters: [{ field: "name", operator: "contains", value: "%" }] },
      [],
    ),
    matches(
      "contains takes _ literally",
      { filters: [{ field: "category", operator: "contains", value: "_" }] },
      [],
    ),
    matches(
      "in",
      { filters: [{ field: "category", operator: "in", value: ["tables", "storage"] }] },
      [5, 6, 11, 12],
    ),
    matches(
      "free text matches any searchable field, case-insensitive",
      { query: "blue" },
      [1, 3, 6],
    ),
    matches("free text takes % and _ literally", { query: "wool_blend" }, [10]),
    matches(
      "free text and filters together",
      { query: "sofa", filters: [{ field: "price", operator: "lt", value: 700 }] },
      [2],
    ),
    matches(
      "several filters must all hold",
      {
        filters: [
          { field: "color", operator: "eq", value: "blue" },
          { field: "in_stock", operator: "eq", value: true },
          { field: "price", operator: "gte", value: 300 },
        ],
      },
      [1, 3],
    ),
    matches(
      "nothing matches",
      { filters: [{ field: "color", operator: "eq", value: "purple" }] },
      [],
    ),
    matches(
      "a quote in a value is data, not code",
      { filters: [{ field: "name", operator: "eq", value: "x' OR '1'='1" }] },
      [],
    ),
    ordered(
      "sort ascending",
      { sort_by: "price", sort_direction: "asc", limit: 3 },
      [10, 6, 4],
      12,
    ),
    ordered(
      "sort descending",
      { sort_by: "price", sort_direction: "desc", limit: 3 },
      [12, 5, 1],
      12,
    ),
    ordered("sort by text", { sort_by: "name", limit: 2 }, [4, 2], 12),
    ordered(
      "limit counts every match in total",
      {
        filters: [{ field: "color", operator: "eq", value: "blue" }],
        sort_by: "price",
        limit: 2,
      },
      [10, 6],
      4,
    ),
    {
      title: "a sort with ties cut by the limit answers a prefix of the longer search, every time",
      async run(subject) {
        // Four blue products: a limit of 3 cuts through the tie, so only a tie-break makes the
        // shorter answer agree with the longer one, and with itself on the next call.
        const longer = ids(await search(subject, { sort_by: "color", limit: 10 }));
        for (const call of [1, 2, 3]) {
          const shorter = ids(await search(subject, { sort_by: "color", limit: 3 }));
          assert.deepEqual(shorter, longer.slice(0, 3), `call ${call}: the first 3 ids`);
        }
      },
    },
    {
      title: "an unknown field is refused before the backend is asked",
      async run(subject) {
        for (const params of [
          { filters: [{ field: "cost", operator: "eq" as const, value: 1 }] },
          { sort_by: "price; DROP TABLE products" },
        ]) {
          const error = await refusal(search(subject, params));
          assert.equal(error.code, "validation_failed");
          assert.equal(error.status, 422);
        }
      },
    },
    {
      title: "a failing backend is 422 adapter_error",
      async run(subject) {
        const { adapter, collection } = subject.failing;
        const error = await refusal(
          runSearch(adapter, collection, checkSearch(collection, { collection: collection.name })),
        );
        assert.equal(error.code, "adapter_error");
        assert.equal(error.status, 422);
      },
    },
    {
      title: "introspection names each field with its type and counts the records",
      async run(subject) {
        if (subject.adapter.introspect === undefined) return;
        const signal = new AbortController().signal;
        const found = await subject.adapter.introspect(subject.collection, { signal });
        const types = Object.fromEntries(found.fields.map((f) => [f.name, f.type]));
        assert.equal(types.name, "string");
        assert.equal(types.price, "number");
        assert.equal(types.in_stock, "boolean");
        assert.equal(types.released_on, "date");
        assert.equal(found.recordCount, CONFORMANCE_DATASET.length);
      },
    },
  ];
}
