import type { Knex } from "knex";

/**
 * `jobs`: the table of our knex backend for agenda (core/jobs/), on SQLite and MySQL/MariaDB.
 * The columns are those of the official PostgreSQL backend's `agenda_jobs`, with times as BIGINT
 * milliseconds like every other table here, and `single_name`: the name of a `single` job (one row
 * per name, the recurring schedules), else NULL, unique, since MySQL has no partial index.
 * On PostgreSQL the official backend creates and migrates its own table, so nothing is made here.
 */
export async function up(knex: Knex): Promise<void> {
  if (onPostgres(knex)) return;
  await knex.schema.createTable("jobs", (t) => {
    t.string("id", 36).primary();
    t.string("name", 255).notNullable();
    t.integer("priority").notNullable().defaultTo(0);
    t.bigInteger("next_run_at").nullable();
    t.string("type", 10).notNullable().defaultTo("normal");
    t.string("single_name", 255).nullable().unique();
    t.bigInteger("locked_at").nullable();
    t.bigInteger("last_finished_at").nullable();
    t.bigInteger("failed_at").nullable();
    t.integer("fail_count").nullable();
    t.text("fail_reason").nullable();
    t.string("repeat_timezone", 100).nullable();
    t.bigInteger("last_run_at").nullable();
    t.string("repeat_interval", 255).nullable();
    t.text("data", "mediumtext").nullable();
    t.string("repeat_at", 255).nullable();
    t.boolean("disabled").notNullable().defaultTo(false);
    t.double("progress").nullable();
    t.boolean("fork").notNullable().defaultTo(false);
    t.string("last_modified_by", 255).nullable();
    t.bigInteger("debounce_started_at").nullable();
    t.bigInteger("start_date").nullable();
    t.bigInteger("end_date").nullable();
    t.string("skip_days", 100).nullable();
    t.bigInteger("created_at").notNullable();
    t.bigInteger("updated_at").notNullable();
    // Finding the next job of a name to lock; the lock's age (takeover); the queue size.
    t.index(["name", "disabled", "next_run_at", "priority"]);
    t.index(["locked_at"]);
    t.index(["next_run_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  if (onPostgres(knex)) return;
  await knex.schema.dropTable("jobs");
}

const onPostgres = (knex: Knex) => knex.client.config.client === "pg";
