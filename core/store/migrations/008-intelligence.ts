import type { Knex } from "knex";

/**
 * Site intelligence: the crawls of each site and the cached answer of the site-intelligence
 * endpoint, shared by every instance.
 *
 * A crawl is queued (by a site's creation or domain change, the nightly job or a refresh), then
 * run by one instance holding its lease (`lease_owner` until `lease_until`), then done or failed.
 * `active_site_id` is the site's id while the crawl is queued or running and null after: its
 * unique index makes a second queued crawl of a site impossible, so a refresh racing another gets
 * the crawl already there. Pages and errors are JSON (medium text: a 500-page crawl outgrows
 * MySQL's 64 KB TEXT).
 *
 * `site_intelligence` is one row per site: the pages of the latest finished crawl and the
 * collections' introspection (`generated_at`), the personality prompt (`prompt_generated_at`),
 * the site version they were built from, when a refresh made them stale (`invalidated_at`), and
 * the lease of the one regeneration under way (`regen_owner` until `regen_until`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("crawls", (t) => {
    t.string("id", 40).primary();
    t.string("site_id", 63)
      .notNullable()
      .references("site_id")
      .inTable("sites")
      .onDelete("CASCADE");
    /** created, domain_change, nightly or refresh. */
    t.string("trigger", 16).notNullable();
    /** queued, running, done or failed. */
    t.string("status", 16).notNullable();
    t.string("active_site_id", 63).nullable().unique();
    /** The domain crawled, recorded when the crawl starts. */
    t.string("domain", 255).nullable();
    t.bigInteger("created_at").notNullable();
    t.bigInteger("dispatched_at").nullable();
    t.bigInteger("started_at").nullable();
    t.bigInteger("finished_at").nullable();
    t.string("lease_owner", 100).nullable();
    t.bigInteger("lease_until").nullable();
    t.integer("attempts").notNullable().defaultTo(0);
    t.integer("page_count").notNullable().defaultTo(0);
    t.text("pages", "mediumtext").nullable();
    t.text("errors", "mediumtext").nullable();
    t.index(["site_id", "created_at", "id"]);
    t.index(["status", "dispatched_at"]);
  });
  await knex.schema.createTable("site_intelligence", (t) => {
    t.string("site_id", 63).primary().references("site_id").inTable("sites").onDelete("CASCADE");
    t.integer("site_version").notNullable();
    t.string("crawl_id", 40).nullable();
    /** JSON: the answer's `site` (origin, totalPages, pages), null when no crawl has any. */
    t.text("site", "mediumtext").nullable();
    /** JSON: the answer's `data` (collections). */
    t.text("data", "mediumtext").notNullable();
    t.bigInteger("generated_at").notNullable();
    t.text("prompt", "mediumtext").notNullable();
    t.bigInteger("prompt_generated_at").notNullable();
    t.bigInteger("invalidated_at").nullable();
    t.string("regen_owner", 100).nullable();
    t.bigInteger("regen_until").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("site_intelligence");
  await knex.schema.dropTable("crawls");
}
