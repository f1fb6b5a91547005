/**
 * The connection options of a `mysql://user:password@host:port/database` URL, parsed here rather
 * than by mysql2, which would take any query parameter as a driver option (`multipleStatements`,
 * `typeCast`, …) and undo what the adapter relies on.
 */
import type mysql from "mysql2/promise";

/** The connection string's parameters the adapter honours. */
const URL_PARAMETERS = new Set(["charset"]);

export function connectionOptions(connectionString: string): mysql.PoolOptions {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw new Error("the connection string is not a valid URL");
  }
  if (url.protocol !== "mysql:") throw new Error("the connection string must start with mysql://");
  for (const key of url.searchParams.keys()) {
    if (!URL_PARAMETERS.has(key)) {
      throw new Error(
        `connection string parameter ${JSON.stringify(key)} is not supported ` +
          `(supported: ${[...URL_PARAMETERS].join(", ")})`,
      );
    }
  }
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      throw new Error("the connection string has an invalid %-escape");
    }
  };
  const charset = url.searchParams.get("charset");
  return {
    host: decode(url.hostname.replace(/^\[(.*)\]$/, "$1")) || "localhost",
    port: url.port === "" ? 3306 : Number(url.port),
    user: decode(url.username),
    password: decode(url.password),
    database: decode(url.pathname.slice(1)) || undefined,
    ...(charset === null ? {} : { charset }),
  };
}
