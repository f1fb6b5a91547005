/**
 * The dataset every adapter is tested on: twelve products with a unique price each (so sorting
 * has one right answer), text with mixed case, a boolean and a date. A backend under test must
 * hold exactly these records, with these field names and types (`released_on` as a DATE where
 * the backend has one, else the ISO date string).
 */
export interface ConformanceProduct {
  id: number;
  name: string;
  description: string;
  category: string;
  color: string;
  price: number;
  in_stock: boolean;
  released_on: string;
}

// prettier-ignore
export const CONFORMANCE_DATASET: readonly ConformanceProduct[] = [
  { id: 1, name: "Oslo Sofa", description: "Three-seat sofa in Blue wool", category: "sofas", color: "blue", price: 799, in_stock: true, released_on: "2023-02-01" },
  { id: 2, name: "Bergen Sofa", description: "Two-seat sofa, linen cover", category: "sofas", color: "grey", price: 649, in_stock: false, released_on: "2022-09-15" },
  { id: 3, name: "Malmo Armchair", description: "Deep armchair in blue velvet", category: "chairs", color: "blue", price: 349, in_stock: true, released_on: "2024-01-20" },
  { id: 4, name: "Aarhus Dining Chair", description: "Oak chair with a woven seat", category: "chairs", color: "natural", price: 129, in_stock: true, released_on: "2021-05-05" },
  { id: 5, name: "Turku Table", description: "Extendable oak dining table", category: "tables", color: "natural", price: 899, in_stock: true, released_on: "2023-06-30" },
  { id: 6, name: "Lund Side Table", description: "Small round table, BLUE lacquer", category: "tables", color: "blue", price: 99, in_stock: false, released_on: "2024-03-12" },
  { id: 7, name: "Kolding Lamp", description: "Floor lamp with a linen shade", category: "lighting", color: "white", price: 189, in_stock: true, released_on: "2022-11-11" },
  { id: 8, name: "Vaasa Pendant", description: "Pendant light in smoked glass", category: "lighting", color: "grey", price: 259, in_stock: true, released_on: "2023-10-01" },
  { id: 9, name: "Odense Rug", description: "Wool rug, 200 x 300 cm", category: "textiles", color: "grey", price: 449, in_stock: false, released_on: "2021-12-01" },
  { id: 10, name: "Tromso Throw", description: "Soft throw: 100% wool_blend", category: "textiles", color: "blue", price: 79, in_stock: true, released_on: "2024-05-18" },
  { id: 11, name: "Espoo Bookcase", description: "Tall bookcase, five shelves", category: "storage", color: "white", price: 299, in_stock: true, released_on: "2022-04-22" },
  { id: 12, name: "Uppsala Sideboard", description: "Low sideboard with sliding doors", category: "storage", color: "natural", price: 999, in_stock: false, released_on: "2023-08-08" },
];

/** The field lists of the conformance collection; an adapter's test gives it its `source`. */
export const CONFORMANCE_FIELDS = {
  searchable_fields: ["name", "description"],
  filterable_fields: ["category", "color", "price", "in_stock", "released_on"],
  display_fields: ["id", "name", "category", "color", "price", "in_stock"],
} as const;
