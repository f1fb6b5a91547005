import { expect } from "chai";
import { answeredAs } from "../../test/helpers/answered-as.ts";
import pino from "pino";
import { Writable } from "node:stream";
import type { DataAdapter } from "../host/plugin.ts";
import { checkSearch } from "./check-search.ts";
import { runSearch } from "./run-search.ts";
import type { CollectionSpec } from "./search-types.ts";

const collection: CollectionSpec = {
  name: "menu",
  source: "/menu",
  searchable_fields: ["name"],
  filterable_fields: ["price"],
  display_fields: ["name", "price"],
};
const query = checkSearch(collection, { collection: "menu", query: "pizza", limit: 2 });

async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string; details?: Record<string, unknown> };
  }
  throw new Error("expected a rejection");
}

describe("runSearch", () => {
  it("keeps only the returned fields and at most limit items", async () => {
    const adapter: DataAdapter = {
      search: async () => ({
        success: true,
        total: 3,
        items: [
          { name: "Margherita", price: 11, cost: 3 },
          { name: "Marinara", price: 9, supplier: "x" },
          { name: "Diavola", price: 13 },
        ],
      }),
    };
    expect(await runSearch(adapter, collection, query)).to.deep.equal({
      success: true,
      total: 3,
      returned: 2,
      items: [
        { name: "Margherita", price: 11 },
        { name: "Marinara", price: 9 },
      ],
    });
  });

  it("returns a field named __proto__ as a field, never as the answer's prototype", async () => {
    const odd: CollectionSpec = { ...collection, display_fields: ["name", "__proto__"] };
    const item = JSON.parse('{"name":"Margherita","__proto__":{"price":11}}') as Record<
      string,
      unknown
    >;
    const adapter: DataAdapter = {
      search: async () => ({ success: true, total: 1, items: [item] }),
    };
    const result = await runSearch(
      adapter,
      odd,
      checkSearch(odd, { collection: "menu", limit: 1 }),
    );
    const [picked] = (result as { items: Record<string, unknown>[] }).items;
    expect(Object.getPrototypeOf(picked)).to.equal(Object.prototype);
    expect(JSON.stringify(picked)).to.equal('{"name":"Margherita","__proto__":{"price":11}}');
  });

  it("aborts the adapter's signal and answers 504 adapter_timeout at the deadline", async () => {
    let aborted: unknown;
    const adapter: DataAdapter = {
      search: (_c, _q, { signal }) =>
        new Promise(() => {
          signal.addEventListener("abort", () => (aborted = signal.reason));
        }),
    };
    const error = await rejection(runSearch(adapter, collection, query, { timeoutMs: 20 }));
    expect(answeredAs(error)).to.deep.equal({ code: "adapter_timeout", status: 504 });
    expect(aborted).to.equal(error);
  });

  it("aborts the adapter when the caller's signal does", async () => {
    const caller = new AbortController();
    let seen = false;
    const adapter: DataAdapter = {
      search: (_c, _q, { signal }) =>
        new Promise((_, reject) => {
          signal.addEventListener("abort", () => {
            seen = true;
            reject(new Error("aborted"));
          });
          caller.abort(new Error("client gone"));
        }),
    };
    const error = await rejection(runSearch(adapter, collection, query, { abort: caller }));
    expect(seen).to.equal(true);
    expect(error).to.include({ code: "adapter_error" });
  });

  describe("422 adapter_error for success:false, a throw, and an invalid result", () => {
    const answers: [string, DataAdapter["search"], string][] = [
      [
        "success:false, with the adapter's error",
        async () => ({ success: false, error: "backend answered 503" }),
        "backend answered 503",
      ],
      [
        "a throw, without its message",
        async () => {
          throw new Error("password=hunter2 in a driver message");
        },
        "the adapter failed unexpectedly",
      ],
      [
        "an invalid result",
        async () => ({ success: true, total: "3", items: [] }) as never,
        "the adapter returned an invalid result",
      ],
    ];
    for (const [what, search, message] of answers) {
      it(`422 adapter_error for ${what}`, async () => {
        const error = await rejection(runSearch({ search }, collection, query));
        expect(answeredAs(error)).to.deep.equal({ code: "adapter_error", status: 422 });
        expect(error.details?.error).to.equal(message);
      });
    }
  });

  it("logs parameters, size and latency, never the rows", async () => {
    let logged = "";
    const logger = pino(
      new Writable({
        write(chunk, _encoding, done) {
          logged += String(chunk);
          done();
        },
      }),
    );
    const adapter: DataAdapter = {
      search: async () => ({
        success: true,
        total: 1,
        items: [{ name: "Secret Special", price: 1 }],
      }),
    };
    await runSearch(adapter, collection, query, { logger });
    const line = JSON.parse(logged.trim()) as Record<string, unknown>;
    expect(line).to.include({
      msg: "search",
      collection: "menu",
      text: "pizza",
      total: 1,
      returned: 1,
    });
    expect(line.latency_ms).to.be.a("number");
    expect(logged).not.to.include("Secret Special");
  });
});
