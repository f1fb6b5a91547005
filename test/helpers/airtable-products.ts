/**
 * CONFORMANCE_DATASET as an Airtable table, for the Airtable adapter's tests: the field types a
 * business would give it in Airtable (the name the primary field, a currency price, a checkbox,
 * a date), and its rows as Airtable holds them.
 */
import { CONFORMANCE_DATASET } from "../../core/host/testing/conformance-dataset.ts";
import type { AirtableTableSpec } from "./airtable-standin.ts";

/** A base ID of the right shape. */
export const BASE_ID = "appStandinBase001";

export const PRODUCT_FIELDS: AirtableTableSpec["fields"] = [
  { name: "name", type: "singleLineText" },
  { name: "id", type: "number", options: { precision: 0 } },
  { name: "description", type: "multilineText" },
  { name: "category", type: "singleLineText" },
  { name: "color", type: "singleLineText" },
  { name: "price", type: "currency", options: { precision: 2, symbol: "€" } },
  { name: "in_stock", type: "checkbox", options: { color: "greenBright", icon: "check" } },
  {
    name: "released_on",
    type: "date",
    options: { dateFormat: { name: "iso", format: "YYYY-MM-DD" } },
  },
];

/** The products table, named `name`, with `rows` (the conformance dataset when left out). */
export function productsTable(
  name = "Products",
  rows: Record<string, unknown>[] = CONFORMANCE_DATASET.map((product) => ({ ...product })),
): AirtableTableSpec {
  return { name, fields: PRODUCT_FIELDS, rows };
}
