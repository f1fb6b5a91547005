/**
 * agenda's backend for SQLite and MySQL/MariaDB: our knex repository on the store's own knex
 * instance, which the store opens and closes (so the backend owns no connection), and no
 * notification channel: processors poll every `processEvery`.
 */
import type { AgendaBackend } from "agenda";
import type { Knex } from "knex";
import type { KnexJobsClient } from "./knex-job-locks.ts";
import { KnexJobRepository } from "./knex-job-repository.ts";

export class KnexBackend implements AgendaBackend {
  readonly name: string;
  readonly repository: KnexJobRepository;
  readonly ownsConnection = false;

  constructor(knex: Knex, client: KnexJobsClient) {
    this.name = client === "sqlite" ? "SQLite (knex)" : "MySQL/MariaDB (knex)";
    this.repository = new KnexJobRepository(knex, client);
  }

  connect(): Promise<void> {
    return this.repository.connect();
  }

  /** The connection is the store's: it closes with the store. */
  async disconnect(): Promise<void> {}
}
