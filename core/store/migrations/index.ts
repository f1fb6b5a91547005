/**
 * Migrations are TypeScript modules listed here rather than read from a folder, so they load the
 * same way under tsx, the compiled build and the tests.
 */
import type { Knex } from "knex";
import * as m001 from "./001-accounts.ts";
import * as m002 from "./002-sites.ts";
import * as m003 from "./003-widget.ts";
import * as m004 from "./004-hardening.ts";
import * as m005 from "./005-workspace-contact.ts";
import * as m006 from "./006-jobs.ts";
import * as m007 from "./007-webhooks.ts";
import * as m008 from "./008-intelligence.ts";
import * as m009 from "./009-usage-rollups.ts";
import * as m010 from "./010-retention-indexes.ts";
import * as m011 from "./011-usage-thresholds.ts";
import * as m012 from "./012-usage-stream-index.ts";
import * as m013 from "./013-usage-day-rollups.ts";
import * as m014 from "./014-deleted-sites.ts";
import * as m015 from "./015-voice-calls.ts";
import * as m016 from "./016-call-control.ts";
import * as m017 from "./017-user-data.ts";
import * as m018 from "./018-dashboard-sessions.ts";
import * as m019 from "./019-oauth.ts";
import * as m020 from "./020-usage-stream-heads.ts";
import * as m021 from "./021-address-proof.ts";
import * as m022 from "./022-workspace-secrets.ts";
import * as m023 from "./023-site-knowledge.ts";
import * as m024 from "./024-knowledge-vectors.ts";
import * as m025 from "./025-callback-leads.ts";

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const migrations: Record<string, Migration> = {
  "001-accounts": m001,
  "002-sites": m002,
  "003-widget": m003,
  "004-hardening": m004,
  "005-workspace-contact": m005,
  "006-jobs": m006,
  "007-webhooks": m007,
  "008-intelligence": m008,
  "009-usage-rollups": m009,
  "010-retention-indexes": m010,
  "011-usage-thresholds": m011,
  "012-usage-stream-index": m012,
  "013-usage-day-rollups": m013,
  "014-deleted-sites": m014,
  "015-voice-calls": m015,
  "016-call-control": m016,
  "017-user-data": m017,
  "018-dashboard-sessions": m018,
  "019-oauth": m019,
  "020-usage-stream-heads": m020,
  "021-address-proof": m021,
  "022-workspace-secrets": m022,
  "023-site-knowledge": m023,
  "024-knowledge-vectors": m024,
  "025-callback-leads": m025,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name] as Migration,
};
