/* Generated from plugins/adapter-mysql/config.schema.json by npm run gen:types. Do not edit. */

/**
 * Config of the built-in MySQL adapter. Use a read-only database user.
 */
export interface MysqlAdapterConfig {
  /**
   * A mysql:// URL. The password is encrypted at rest and masked on every read.
   */
  connectionString: string;
  /**
   * Connect over TLS.
   */
  ssl?: boolean;
}
