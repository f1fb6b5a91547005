/**
 * Column values as JSON-friendly types, as mysql2's per-pool `typeCast`: TINYINT(1) (BOOLEAN) as
 * a boolean, DATE as `YYYY-MM-DD`, DATETIME as ISO without a zone (it has none), TIMESTAMP as ISO
 * UTC (the session's time zone is UTC). DECIMAL and BIGINT become numbers by the pool options
 * (BIGINT beyond 2^53 stays a string).
 */
import type mysql from "mysql2/promise";

export function typeCast(field: mysql.TypeCastField, next: () => unknown): unknown {
  switch (field.type) {
    case "TINY": {
      if (field.length !== 1) return next();
      const text = field.string();
      return text === null ? null : text !== "0";
    }
    case "DATETIME":
    case "DATETIME2": {
      const text = field.string();
      return text === null || text.startsWith("0000") ? text : text.replace(" ", "T");
    }
    case "TIMESTAMP":
    case "TIMESTAMP2": {
      const text = field.string();
      return text === null || text.startsWith("0000") ? text : `${text.replace(" ", "T")}Z`;
    }
    default:
      return next();
  }
}
