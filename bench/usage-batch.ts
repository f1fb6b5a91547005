/**
 * The floors' copy of how the service records usage events (core/events/event-bus.ts): a row
 * waits at most 5 ms, or until 250 are pending, and each batch is written in one SQLite
 * transaction, here of one prepared INSERT per row through better-sqlite3 into a table of the
 * floor's own, in its own WAL file. The floors do not wait for the write before answering, as
 * the service's query route does not. The service's row also has four columns left null and a
 * unique index on (site_id, client_event_id); the primary key and the (site_id, created_at)
 * index, which every insert maintains, are the same here.
 */
import Database from "better-sqlite3";

export interface UsageRow {
  id: string;
  site_id: string;
  session_id: string;
  type: string;
  /** JSON. */
  metadata: string;
  created_at: number;
}

const FLUSH_MS = 5;
const BATCH_SIZE = 250;

export class UsageBatch {
  private readonly db: Database.Database;
  private readonly writeAll: (rows: UsageRow[]) => void;
  private pending: UsageRow[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(file: string) {
    this.db = new Database(file);
    // As core/store/database.ts opens the service's file.
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec(`create table if not exists usage_events (
      id text primary key, site_id text not null, session_id text, type text not null,
      metadata text, created_at integer not null);
      create index if not exists usage_events_site_created on usage_events (site_id, created_at);`);
    const insert = this.db.prepare<UsageRow>(
      `insert into usage_events (id, site_id, session_id, type, metadata, created_at)
       values (@id, @site_id, @session_id, @type, @metadata, @created_at)`,
    );
    this.writeAll = this.db.transaction((rows: UsageRow[]) => {
      for (const row of rows) insert.run(row);
    });
  }

  add(row: UsageRow): void {
    this.pending.push(row);
    if (this.pending.length >= BATCH_SIZE) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Writes what is pending; a failed batch is reported, as the service logs it, not thrown. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.pending.splice(0);
    if (rows.length === 0) return;
    try {
      this.writeAll(rows);
    } catch (error) {
      console.error(`${rows.length} usage events not stored:`, error);
    }
  }

  close(): void {
    this.flush();
    this.db.close();
  }
}
