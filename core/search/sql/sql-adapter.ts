/**
 * The DataAdapter of the SQL databases, shared by the PostgreSQL and MySQL plugins: it turns a
 * checked search into SQL (build-search.ts) and the rows into a SearchResult, and introspects a
 * collection. What differs per database (pool, read-only transaction, server-side timeout,
 * cancel, value types, catalog) sits behind SqlConnector.
 */
import type { DataAdapter, SearchOptions } from "../../host/plugin.ts";
import { allowedFields } from "../check-search.ts";
import type {
  AdapterQuery,
  CollectionIntrospection,
  CollectionSpec,
  FieldType,
  SearchResult,
} from "../search-types.ts";
import {
  countStatement,
  parseSource,
  recordCountStatement,
  sampleStatement,
  searchStatement,
  type SqlStatement,
  type SqlValue,
} from "./build-search.ts";
import type { SqlDialect } from "./dialect.ts";
import { SqlAdapterError, untilAborted } from "./errors.ts";

/** A row as the connector returns it: values already converted to JSON-friendly types. */
export type SqlRow = Record<string, unknown>;

/** A column of a table or view, from the database's catalog. */
export interface CatalogColumn {
  name: string;
  type: FieldType;
}

/**
 * How a connector's pool is doing, for health checks and tests. Counted by the connector
 * (PoolTally), not read from a driver's internals.
 */
export interface PoolStats {
  /** Connections made and not yet dropped by the pool or discarded (none once it has ended). */
  total: number;
  /** Those of `total` not checked out. */
  idle: number;
  /** Requests for a connection the pool has not answered yet (queued, or a new one connecting). */
  waiting: number;
  /** True from the start of close(). */
  closed: boolean;
}

/** One database's side of the adapter. Every failure it rejects with is a SqlAdapterError. */
export interface SqlConnector {
  readonly dialect: SqlDialect;
  /** Qualifies a bare `source` (PostgreSQL `schema` config). */
  readonly defaultSchema?: string;
  /**
   * The rows of one statement, run in a read-only transaction under the server-side timeout.
   * When `signal` aborts it rejects at once with a `cancelled` failure, stops the statement on the
   * server, and discards the connection rather than returning it to the pool.
   */
  select(statement: SqlStatement, signal: AbortSignal): Promise<SqlRow[]>;
  /** The columns of a relation, in table order; empty when it does not exist. */
  columns(relation: readonly string[], signal: AbortSignal): Promise<CatalogColumn[]>;
  /**
   * The columns of a relation's PRIMARY KEY from the catalog, in key order, the relation resolved
   * as a search's FROM resolves it; empty for a view, a table without one, or no such relation.
   * Searches order ties by them.
   */
  primaryKey(relation: readonly string[], signal: AbortSignal): Promise<string[]>;
  /** Whether the server has window functions (for the total in the same statement). */
  countsInWindow(signal: AbortSignal): Promise<boolean>;
  stats(): PoolStats;
  /** Stops what still runs on the server and ends the pool. */
  close(): Promise<void>;
}

/** Sample strings longer than this are cut: a sample shows a field's shape, not its content. */
const SAMPLE_MAX_LENGTH = 200;

export class SqlAdapter implements DataAdapter {
  readonly #connector: SqlConnector;
  /** Aborts every call in flight when the adapter closes. */
  readonly #closing = new AbortController();
  /**
   * Each searched relation's primary key lookup, by relation. Asked once per adapter, that is
   * per site config: a table's key does not change under a running site, and the catalog need
   * not be asked on every search. A failed lookup is dropped, so the next search asks again.
   */
  readonly #primaryKeys = new Map<string, Promise<string[]>>();

  constructor(connector: SqlConnector) {
    this.#connector = connector;
  }

  async search(
    collection: CollectionSpec,
    query: AdapterQuery,
    { signal }: SearchOptions,
  ): Promise<SearchResult> {
    try {
      return await this.#linked(signal, async (linked) => {
        const { dialect } = this.#connector;
        const relation = parseSource(collection.source, this.#connector.defaultSchema);
        const windowCount = await this.#connector.countsInWindow(linked);
        const primaryKey = await this.#primaryKey(relation, linked);
        const statement = searchStatement(dialect, relation, query, { windowCount, primaryKey });
        const rows = await this.#connector.select(statement, linked);
        const { totalColumn } = statement;
        let total: number;
        if (totalColumn === undefined) {
          const [row] = await this.#connector.select(
            countStatement(dialect, relation, query),
            linked,
          );
          total = Number(row?.total ?? 0);
        } else {
          // No row means no match: the window count needs no second statement.
          total = rows.length === 0 ? 0 : Number(rows[0]?.[totalColumn]);
          for (const row of rows) delete row[totalColumn];
        }
        return { success: true, total, items: rows };
      });
    } catch (error) {
      if (error instanceof SqlAdapterError) return { success: false, error: error.message };
      throw error;
    }
  }

  /**
   * The collection's fields (those it lists, never the table's other columns, which the site
   * owner did not choose to expose), typed from the catalog, with a sample value from one row,
   * and the number of rows. A field the table lacks is typed "unknown".
   */
  async introspect(
    collection: CollectionSpec,
    { signal }: SearchOptions,
  ): Promise<CollectionIntrospection> {
    return this.#linked(signal, async (linked) => {
      const { dialect } = this.#connector;
      const relation = parseSource(collection.source, this.#connector.defaultSchema);
      const columns = await this.#connector.columns(relation, linked);
      if (columns.length === 0) {
        throw new SqlAdapterError(
          "backend",
          `table or view ${relation.join(".")} was not found, or this user may not read it`,
        );
      }
      const types = new Map(columns.map((column) => [column.name, column.type]));
      const names = allowedFields(collection);
      const present = names.filter((name) => types.has(name));
      const [sample] =
        present.length === 0
          ? []
          : await this.#connector.select(sampleStatement(dialect, relation, present), linked);
      const [count] = await this.#connector.select(recordCountStatement(dialect, relation), linked);
      return {
        name: collection.name,
        source: collection.source,
        recordCount: Number(count?.total ?? 0),
        fields: names.map((name) => {
          const value = sample?.[name];
          return {
            name,
            type: types.get(name) ?? "unknown",
            ...(value === undefined || value === null ? {} : { sample: shortened(value) }),
          };
        }),
      };
    });
  }

  /** Resolves when the database answers `SELECT 1`; rejects with why not. */
  async test({ signal }: SearchOptions): Promise<void> {
    await this.#linked(signal, (linked) =>
      this.#connector.select({ sql: "SELECT 1 AS ok", params: [] }, linked),
    );
  }

  /**
   * Runs one statement the way every statement of this adapter runs: read-only transaction,
   * server-side timeout, cancelled on abort. Not part of DataAdapter; for diagnostics and tests.
   */
  async query(
    sql: string,
    params: SqlValue[],
    { signal }: SearchOptions,
  ): Promise<Record<string, unknown>[]> {
    return this.#linked(signal, (linked) => this.#connector.select({ sql, params }, linked));
  }

  /** The pool's state. Not part of DataAdapter; for health checks and tests. */
  poolStats(): PoolStats {
    return this.#connector.stats();
  }

  async close(): Promise<void> {
    if (!this.#closing.signal.aborted) this.#closing.abort(SqlAdapterError.closed());
    await this.#connector.close();
  }

  /**
   * The primary key of `relation`, from the cache or the catalog. The lookup runs under the
   * adapter's own signal, not the caller's: other searches may be waiting on it, and one caller
   * giving up must not fail theirs. The caller stops waiting when its signal aborts.
   */
  #primaryKey(relation: readonly string[], signal: AbortSignal): Promise<string[]> {
    const name = JSON.stringify(relation);
    let lookup = this.#primaryKeys.get(name);
    if (lookup === undefined) {
      const asked = this.#connector.primaryKey(relation, this.#closing.signal);
      asked.catch(() => {
        if (this.#primaryKeys.get(name) === asked) this.#primaryKeys.delete(name);
      });
      this.#primaryKeys.set(name, asked);
      lookup = asked;
    }
    return untilAborted(lookup, signal);
  }

  /** Runs `work` with a signal that aborts with the caller's or when the adapter closes. */
  async #linked<T>(signal: AbortSignal, work: (linked: AbortSignal) => Promise<T>): Promise<T> {
    if (this.#closing.signal.aborted) throw SqlAdapterError.closed();
    const controller = new AbortController();
    const sources = [signal, this.#closing.signal];
    const onAbort = (event: Event) =>
      controller.abort((event.target as AbortSignal | null)?.reason);
    for (const source of sources) {
      if (source.aborted) controller.abort(source.reason);
      else source.addEventListener("abort", onAbort, { once: true });
    }
    try {
      return await work(controller.signal);
    } finally {
      for (const source of sources) source.removeEventListener("abort", onAbort);
    }
  }
}

function shortened(value: unknown): unknown {
  if (typeof value !== "string" || value.length <= SAMPLE_MAX_LENGTH) return value;
  return `${value.slice(0, SAMPLE_MAX_LENGTH)}…`;
}
