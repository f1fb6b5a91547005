/**
 * The parts of a SQL connection string, `scheme://user:password@host:port/database?parameters`,
 * read here rather than by the driver, which takes every parameter as an option of its own: pg
 * reads `sslcert`, `sslkey` and `sslrootcert` as paths of local files, `host` as a socket path
 * and `password` past the masking; mysql2 turns on `multipleStatements`. A SQL adapter names the
 * few parameters it honours; any other is refused, so none reaches the driver.
 */
import { bareHost } from "../../security/address-range.ts";

export interface ConnectionParts {
  /** Percent-decoded; a PostgreSQL host starting with `/` is a Unix socket (the policy refuses it). */
  host: string;
  port: number;
  user: string;
  password: string;
  database: string | undefined;
  /** The honoured parameters the string gives. */
  parameters: Map<string, string>;
}

export interface ConnectionUrlRules {
  /** The schemes taken, as URL protocols: `postgres:`, `mysql:`. */
  schemes: readonly string[];
  defaultPort: number;
  /** The parameters honoured; empty when none is. */
  parameters: readonly string[];
}

export function parseConnectionUrl(
  connectionString: string,
  rules: ConnectionUrlRules,
): ConnectionParts {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw new Error("the connection string is not a valid URL");
  }
  if (!rules.schemes.includes(url.protocol)) {
    const schemes = rules.schemes.map((scheme) => `${scheme}//`).join(" or ");
    throw new Error(`the connection string must start with ${schemes}`);
  }
  const parameters = new Map<string, string>();
  for (const [key, value] of url.searchParams) {
    if (!rules.parameters.includes(key)) {
      const supported = rules.parameters.length === 0 ? "none" : rules.parameters.join(", ");
      throw new Error(
        `connection string parameter ${JSON.stringify(key)} is not supported (supported: ${supported})`,
      );
    }
    parameters.set(key, value);
  }
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      throw new Error("the connection string has an invalid %-escape");
    }
  };
  return {
    host: decode(bareHost(url.hostname)) || "localhost",
    port: url.port === "" ? rules.defaultPort : Number(url.port),
    user: decode(url.username),
    password: decode(url.password),
    database: decode(url.pathname.slice(1)) || undefined,
    parameters,
  };
}
