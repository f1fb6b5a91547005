/**
 * What a SQL adapter takes as a collection's `source`: a table or view name, optionally
 * schema-qualified, each part of letters, digits, `_` and `$` (at most 63). It becomes an
 * identifier in SQL, so a SQL adapter declares this as its `collectionSchema` and anything else
 * is refused when the site is saved, not at the first search.
 */
export const SQL_COLLECTION_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "SQL collection",
  description: "A collection of a SQL adapter: its source is a table or view name.",
  type: "object",
  properties: {
    source: {
      type: "string",
      pattern: "^[A-Za-z0-9_$]{1,63}(\\.[A-Za-z0-9_$]{1,63})?$",
      "x-error-message":
        "must be a table or view name such as products or catalog.products (letters, digits, _ and $)",
    },
  },
} as const;
