/* Generated from plugins/adapter-postgres/config.schema.json by npm run gen:types. Do not edit. */

/**
 * Config of the built-in Postgres adapter. Use a read-only database user.
 */
export interface PostgresAdapterConfig {
  /**
   * A postgres:// or postgresql:// URL. The password is encrypted at rest and masked on every read.
   */
  connectionString: string;
  /**
   * Database schema holding the collections' tables; the connection's search path when left out.
   */
  schema?: string;
  /**
   * Connect over TLS.
   */
  ssl?: boolean;
}
