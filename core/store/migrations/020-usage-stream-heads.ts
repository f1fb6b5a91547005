import type { Knex } from "knex";

/**
 * `usage_stream_heads`: per site, the id of its last usage event in commit order. A batch of
 * usage events locks its sites' rows (core/store/repos/usage-stream-heads.ts) and gives each event
 * an id above its site's head, so a site's ids grow in the order their batches commit, whichever
 * instance wrote them: the live stream can replay "every event after this id" and be sure no
 * event with a lower id commits later. Filled here from the events already stored.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("usage_stream_heads", (t) => {
    t.string("site_id", 63).primary();
    t.string("last_id", 40).notNullable();
  });
  await knex.raw(
    "insert into usage_stream_heads (site_id, last_id)" +
      " select site_id, max(id) from usage_events group by site_id",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("usage_stream_heads");
}
