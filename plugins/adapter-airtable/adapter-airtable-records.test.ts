/**
 * How the Airtable adapter reads records: offsets followed to count every match, the count
 * stopping at MAX_COUNTED, a failed later page failing the search, the items it returns (false
 * for an unchecked checkbox, other empty fields left out), a sort's ties broken by the returned
 * fields, introspection, and the table schemas it keeps (one fetch shared, fetched again late).
 */
import { expect } from "chai";
import { CONFORMANCE_DATASET } from "../../core/host/testing/conformance-dataset.ts";
import { BASE_ID, productsTable } from "../../test/helpers/airtable-products.ts";
import { startAirtableStandin, type AirtableStandin } from "../../test/helpers/airtable-standin.ts";
import { makeTable } from "../../test/helpers/airtable-standin-tables.ts";
import { MAX_COUNTED } from "./airtable-records.ts";
import { MIN_RELOAD_MS, SCHEMA_TTL_MS } from "./airtable-schema.ts";
import { TOKEN, airtableAdapters, products, query, signal } from "./adapter-airtable-fixtures.ts";

/** 1,234 products: prices 0 to 1,233, every third one in stock. */
const MANY = Array.from({ length: 1_234 }, (_, i) => ({
  id: i + 1,
  name: `Product ${i}`,
  description: "",
  category: "misc",
  color: i % 2 === 0 ? "red" : "",
  price: i,
  in_stock: i % 3 === 0,
  released_on: "2024-01-01",
}));

describe("Airtable adapter records", () => {
  let standin: AirtableStandin;
  let now = 1_000_000;
  const { airtableAdapter, closeHosts } = airtableAdapters();
  const adapter = () =>
    airtableAdapter({ baseId: BASE_ID, apiUrl: standin.origin }, { now: () => now });
  const many = { ...products, source: "Many" };

  before(async () => {
    standin = await startAirtableStandin({
      baseId: BASE_ID,
      tables: [productsTable(), productsTable("Many", MANY)],
      authorize: (token) => token === TOKEN,
    });
  });
  beforeEach(() => {
    standin.fail(undefined);
    standin.requests.length = 0;
  });
  after(async () => {
    await closeHosts();
    await standin.close();
  });

  it("follows offsets to count every match, keeping the first page's first items", async () => {
    const result = await (
      await adapter()
    ).search(
      many,
      query({
        filters: [{ field: "price", operator: "lt", value: 250 }],
        sort: { field: "price", direction: "desc" },
      }),
      { signal },
    );
    if (!result.success) return expect.fail(result.error);
    expect(result.total).to.equal(250);
    expect(result.items.map((item) => item.price)).to.deep.equal([
      249, 248, 247, 246, 245, 244, 243, 242, 241, 240,
    ]);
    const pages = standin.requestsTo("records");
    expect(pages.map((page) => page.query.get("pageSize"))).to.deep.equal(["100", "100", "100"]);
    expect(pages[0]!.query.has("offset")).to.equal(false);
    expect(
      pages.slice(1).every((page) => /^itr.+\/rec.+$/.test(page.query.get("offset") ?? "")),
    ).to.equal(true);
  });

  it(`stops counting at ${MAX_COUNTED} records, and introspection then gives no count`, async () => {
    const made = await adapter();
    expect(await made.search(many, query({ limit: 3 }), { signal })).to.deep.include({
      success: true,
      total: MAX_COUNTED,
    });
    expect(standin.requestsTo("records")).to.have.length(MAX_COUNTED / 100);
    const found = await made.introspect!(many, { signal });
    expect(found).not.to.have.property("recordCount");
    expect(found.fields.find((field) => field.name === "price")).to.deep.equal({
      name: "price",
      type: "number",
      sample: 0,
    });
  });

  it("fails the search when a later page fails: no partial total", async () => {
    const made = await adapter();
    standin.fail({ status: 429, after: 3 });
    const result = await made.search(many, query(), { signal });
    expect(result).to.deep.include({ success: false });
    expect(standin.requests.map((r) => r.status)).to.deep.equal([200, 200, 200, 429]);
  });

  it("returns false for an unchecked checkbox and leaves other empty fields out", async () => {
    const result = await (await adapter()).search(many, query({ limit: 2 }), { signal });
    if (!result.success) return expect.fail(result.error);
    expect(result.items).to.deep.equal([
      { id: 1, name: "Product 0", category: "misc", color: "red", price: 0, in_stock: true },
      { id: 2, name: "Product 1", category: "misc", price: 1, in_stock: false },
    ]);
  });

  it("asks for the returned fields only, and breaks a sort's ties by them", async () => {
    await (
      await adapter()
    ).search(products, query({ sort: { field: "color", direction: "desc" } }), { signal });
    const [request] = standin.requestsTo("records");
    expect(request!.query.getAll("fields[]")).to.deep.equal([
      "id",
      "name",
      "category",
      "color",
      "price",
      "in_stock",
    ]);
    const sorts = [...request!.query].filter(([name]) => name.startsWith("sort["));
    expect(sorts).to.deep.equal([
      ["sort[0][field]", "color"],
      ["sort[0][direction]", "desc"],
      ...["id", "name", "category", "price", "in_stock"].flatMap((field, i) => [
        [`sort[${i + 1}][field]`, field],
        [`sort[${i + 1}][direction]`, "asc"],
      ]),
    ]);
  });

  it("introspects a table: each field's type from the metadata, samples and the count", async () => {
    const found = await (await adapter()).introspect!(products, { signal });
    expect(found.recordCount).to.equal(CONFORMANCE_DATASET.length);
    expect(found.fields).to.deep.equal([
      { name: "name", type: "string", sample: "Oslo Sofa" },
      { name: "id", type: "number", sample: 1 },
      { name: "description", type: "string", sample: "Three-seat sofa in Blue wool" },
      { name: "category", type: "string", sample: "sofas" },
      { name: "color", type: "string", sample: "blue" },
      { name: "price", type: "number", sample: 799 },
      { name: "in_stock", type: "boolean", sample: true },
      { name: "released_on", type: "date", sample: "2023-02-01" },
    ]);
  });

  it("searches a table by its id as by its name", async () => {
    const id = standin.tables.find((table) => table.name === "Products")!.id;
    const result = await (
      await adapter()
    ).search({ ...products, source: id }, query({ limit: 1 }), { signal });
    expect(result).to.deep.include({ success: true, total: CONFORMANCE_DATASET.length });
    expect(standin.requestsTo("records")[0]!.path).to.equal(`/v0/${BASE_ID}/${id}`);
  });

  it("shares one schema fetch, keeps it, and fetches again for a new table or when old", async () => {
    const made = await adapter();
    await Promise.all([1, 2, 3].map(() => made.search(products, query(), { signal })));
    expect(standin.requestsTo("tables")).to.have.length(1);

    const added = { ...products, source: "Added" };
    standin.tables.push(makeTable(productsTable("Added")));
    now += MIN_RELOAD_MS - 1;
    expect(await made.search(added, query(), { signal })).to.deep.include({ success: false });
    expect(standin.requestsTo("tables")).to.have.length(1);
    now += 1;
    expect(await made.search(added, query(), { signal })).to.deep.include({ success: true });
    expect(standin.requestsTo("tables")).to.have.length(2);

    now += SCHEMA_TTL_MS;
    await made.search(products, query(), { signal });
    expect(standin.requestsTo("tables")).to.have.length(3);
  });
});
