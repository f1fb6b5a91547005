import type { Knex } from "knex";

/**
 * - `site_domains`: which site of a workspace owns each of its domains (the domain and every
 *   additional domain), unique per workspace, so two sites can never share an origin and the
 *   database settles a race between two writers.
 * - `replay_key` on leads and transcripts: the hash of the signed request that wrote the row, unique
 *   per site, so the same signed body sent again records nothing new (usage events have their
 *   `client_event_id` for this).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("site_domains", (t) => {
    t.string("workspace_id", 40).notNullable();
    t.string("domain", 260).notNullable();
    t.string("site_id", 63)
      .notNullable()
      .references("site_id")
      .inTable("sites")
      .onDelete("CASCADE");
    t.primary(["workspace_id", "domain"]);
    t.index(["site_id"]);
  });
  await backfillDomains(knex);
  for (const table of ["leads", "transcripts"]) {
    await knex.schema.alterTable(table, (t) => {
      t.string("replay_key", 64).nullable();
      t.unique(["site_id", "replay_key"]);
    });
  }
}

/** Existing sites' domains; where two sites already share one, the older keeps it. */
async function backfillDomains(knex: Knex): Promise<void> {
  const sites = await knex("sites")
    .select<{ site_id: string; workspace_id: string; domain: string; config: string }[]>(
      "site_id",
      "workspace_id",
      "domain",
      "config",
    )
    .orderBy([{ column: "created_at" }, { column: "site_id" }]);
  const taken = new Set<string>();
  for (const site of sites) {
    const config = JSON.parse(site.config) as { additional_domains?: unknown };
    const extra = Array.isArray(config.additional_domains) ? config.additional_domains : [];
    for (const domain of new Set([site.domain, ...extra.map(String)].map((d) => d.toLowerCase()))) {
      const key = `${site.workspace_id}\u0000${domain}`;
      if (taken.has(key)) continue;
      taken.add(key);
      await knex("site_domains").insert({
        workspace_id: site.workspace_id,
        domain,
        site_id: site.site_id,
      });
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ["leads", "transcripts"]) {
    await knex.schema.alterTable(table, (t) => {
      t.dropUnique(["site_id", "replay_key"]);
      t.dropColumn("replay_key");
    });
  }
  await knex.schema.dropTable("site_domains");
}
