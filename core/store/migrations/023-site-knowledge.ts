import type { Knex } from "knex";

/**
 * A site's knowledge: what its pages say, kept incrementally from crawl to crawl.
 *
 * `site_pages` is one row per page the latest successful crawls found, keyed by the SHA-256 (hex)
 * of its URL (a URL may outgrow an index key): the validators its last answer carried (`etag`,
 * `last_modified`, sent back as If-None-Match / If-Modified-Since), the SHA-256 of its passages'
 * canonical JSON (`content_hash`: a page whose markup changed but whose text did not is
 * unchanged), its passages (JSON), and what a crawl needs of a page that answered 304: its
 * outline (`title`, `description`, `section_ids`) and its same-origin links, to follow them.
 * `crawl_id` is the crawl that stored its present content.
 *
 * `site_knowledge` is one row per site: its search index as serialized (`format` names the
 * index's format, `language` the one it stems for; long text, about 7 MB for 5,000 passages),
 * when it was built, what it holds, and the pages the latest crawl could not index, with why.
 *
 * `crawls` gain the counts of what a crawl found: pages asked for, unchanged (304, or the same
 * text), changed (new or different text) and removed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("site_pages", (t) => {
    t.string("site_id", 63)
      .notNullable()
      .references("site_id")
      .inTable("sites")
      .onDelete("CASCADE");
    t.string("url_hash", 64).notNullable();
    t.text("url").notNullable();
    t.text("etag").nullable();
    t.text("last_modified").nullable();
    t.string("content_hash", 64).notNullable();
    t.text("title").nullable();
    t.text("description").nullable();
    /** JSON array: the ids of the page's headings (the crawl's outline). */
    t.text("section_ids", "mediumtext").notNullable();
    /** JSON array: the page's links within the site, in normal form. */
    t.text("links", "mediumtext").notNullable();
    t.string("language", 35).nullable();
    t.integer("section_count").notNullable().defaultTo(0);
    t.integer("passage_count").notNullable().defaultTo(0);
    /** JSON array of Passage. */
    t.text("passages", "mediumtext").notNullable();
    t.string("crawl_id", 40).nullable();
    t.bigInteger("updated_at").notNullable();
    t.primary(["site_id", "url_hash"]);
  });
  await knex.schema.createTable("site_knowledge", (t) => {
    t.string("site_id", 63).primary().references("site_id").inTable("sites").onDelete("CASCADE");
    t.integer("format").notNullable();
    /** The language the index stems words for: the site's, when it was built. */
    t.string("language", 35).notNullable();
    t.text("serialized", "longtext").notNullable();
    t.bigInteger("built_at").notNullable();
    t.integer("pages").notNullable().defaultTo(0);
    t.integer("sections").notNullable().defaultTo(0);
    t.integer("passages").notNullable().defaultTo(0);
    /** JSON array of primary language subtags, sorted. */
    t.text("languages").notNullable();
    t.string("crawl_id", 40).nullable();
    /** JSON array of {url, reason}. */
    t.text("failures", "mediumtext").notNullable();
  });
  await knex.schema.alterTable("crawls", (t) => {
    for (const column of CRAWL_COUNT_COLUMNS) t.integer(column).notNullable().defaultTo(0);
  });
}

const CRAWL_COUNT_COLUMNS = [
  "pages_fetched",
  "pages_unchanged",
  "pages_changed",
  "pages_removed",
] as const;

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("crawls", (t) => {
    for (const column of CRAWL_COUNT_COLUMNS) t.dropColumn(column);
  });
  await knex.schema.dropTable("site_knowledge");
  await knex.schema.dropTable("site_pages");
}
