import type { Knex } from "knex";

/**
 * The vectors of a site's passages for the optional meaning search (SITEVOICE_EMBEDDINGS),
 * stored beside its keyword index in `site_knowledge`: `vectors` is VectorIndex.serialize()'s
 * text (int8 as base64 in JSON; about 1.7 MB for 5,000 passages, so long text), null when
 * embeddings were off or the provider failed at the last build; `vectors_provider` names the
 * provider (its type in SITEVOICE_EMBEDDINGS) that made them, so turning embeddings on or naming
 * another provider makes them again at the next crawl.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("site_knowledge", (t) => {
    t.text("vectors", "longtext").nullable();
    // A plugin type or package name: npm allows 214 characters.
    t.string("vectors_provider", 214).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("site_knowledge", (t) => {
    t.dropColumn("vectors_provider");
    t.dropColumn("vectors");
  });
}
