/**
 * The mysql2 options of a `mysql://user:password@host:port/database` URL: only `charset` is taken
 * from its parameters (parseConnectionUrl refuses the rest, such as `multipleStatements`).
 */
import type mysql from "mysql2/promise";
import { parseConnectionUrl } from "sitevoice/sql";

export function connectionOptions(connectionString: string): mysql.PoolOptions {
  const { parameters, ...parts } = parseConnectionUrl(connectionString, {
    schemes: ["mysql:"],
    defaultPort: 3306,
    parameters: ["charset"],
  });
  const charset = parameters.get("charset");
  return { ...parts, ...(charset === undefined ? {} : { charset }) };
}
