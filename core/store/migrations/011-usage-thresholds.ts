import type { Knex } from "knex";

/**
 * Usage thresholds: one row per workspace, calendar month (UTC, `YYYY-MM`) and percent of the
 * plan's bundled minutes whose `usage.threshold` event is recorded, written in the transaction of
 * that event. Its primary key is what lets each crossing be recorded once, however many
 * instances check and however often. `id` is the row's own; the insert that skips a taken key
 * needs one on MySQL (core/store/insert-skipping-duplicate.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("usage_thresholds", (t) => {
    t.string("workspace_id", 40)
      .notNullable()
      .references("id")
      .inTable("workspaces")
      .onDelete("CASCADE");
    t.string("month", 7).notNullable();
    t.integer("percent").notNullable();
    t.string("id", 40).notNullable();
    t.bigInteger("created_at").notNullable();
    t.primary(["workspace_id", "month", "percent"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("usage_thresholds");
}
