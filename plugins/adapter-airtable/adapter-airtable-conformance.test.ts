/**
 * The Airtable adapter against the Airtable stand-in holding CONFORMANCE_DATASET with Airtable's
 * field types: the adapter conformance suite, through the service's own search path, with the
 * adapter made as the service makes it (a host giving it `context.oauth`). The failing backend is
 * a second stand-in answering 503 to everything.
 */
import {
  conformanceCollection,
  describeAdapterConformance,
} from "../../core/host/testing/index.ts";
import { BASE_ID, productsTable } from "../../test/helpers/airtable-products.ts";
import { startAirtableStandin, type AirtableStandin } from "../../test/helpers/airtable-standin.ts";
import { TOKEN, airtableAdapters } from "./adapter-airtable-fixtures.ts";

describe("Airtable adapter", () => {
  const standins: AirtableStandin[] = [];
  const { airtableAdapter, closeHosts } = airtableAdapters();

  const standin = async () => {
    const started = await startAirtableStandin({
      baseId: BASE_ID,
      tables: [productsTable()],
      authorize: (token) => token === TOKEN,
    });
    standins.push(started);
    return started;
  };

  describeAdapterConformance(
    "Airtable",
    async () => {
      const working = await standin();
      const failing = await standin();
      failing.fail({ status: 503 });
      return {
        adapter: await airtableAdapter({ baseId: BASE_ID, apiUrl: working.origin }),
        collection: conformanceCollection("Products"),
        failing: {
          adapter: await airtableAdapter({ baseId: BASE_ID, apiUrl: failing.origin }),
          collection: conformanceCollection("Products"),
        },
      };
    },
    async () => {
      await closeHosts();
      for (const started of standins) await started.close();
    },
  );
});
