/**
 * The failures of the SQL adapters, and the two things every one of them needs: a message that
 * can be shown to a site owner (never the password or the connection string, whatever the driver
 * put in it), and a way to stop waiting when the caller's signal aborts.
 *
 * The messages a site owner reads are few and fixed, never the driver's text: whoever writes the
 * connection string chooses the host and port, and "connection refused" against "timed out" (or a
 * driver's quoted server error) would map the network behind the service for them. The logs keep
 * the driver's reason, password masked.
 */
import { outboundRefusal } from "../../security/outbound-policy.ts";

/**
 * Why a SQL adapter call failed: `refused` before any SQL ran (a bad source or query), `backend`
 * when the database or the network failed, `cancelled` when the caller's signal aborted, `closed`
 * when the adapter was already closed.
 */
export type SqlFailureKind = "refused" | "backend" | "cancelled" | "closed";

/**
 * A failure the adapter reports as `{success: false, error}` (or rejects with, for introspect and
 * test). Its message is already free of secrets. The driver's error is deliberately not kept as
 * `cause`: a logger would print it, and its fields are not ours to vouch for.
 */
export class SqlAdapterError extends Error {
  override readonly name = "SqlAdapterError";
  constructor(
    readonly kind: SqlFailureKind,
    message: string,
    /** The SQLSTATE or the driver's error code, when there is one. */
    readonly code?: string,
  ) {
    super(message);
  }

  static refused(message: string): SqlAdapterError {
    return new SqlAdapterError("refused", message);
  }

  static closed(): SqlAdapterError {
    return new SqlAdapterError(
      "closed",
      "the adapter was closed, as its site config changed or the service is stopping",
    );
  }

  /** The failure for a signal that aborted, naming the reason the caller gave. */
  static cancelled(signal: AbortSignal): SqlAdapterError {
    const reason: unknown = signal.reason;
    const why = reason instanceof Error ? reason.message : undefined;
    return new SqlAdapterError("cancelled", `the query was cancelled${why ? `: ${why}` : ""}`);
  }
}

/**
 * A function that masks the connection string and its password wherever they appear in a text,
 * plus any `scheme://user:password@` credentials, so a driver message can be shown.
 */
export function secretRedactor(connectionString: string): (text: string) => string {
  const secrets = new Set<string>([connectionString]);
  try {
    const { password } = new URL(connectionString);
    if (password !== "") {
      secrets.add(password);
      secrets.add(safeDecode(password));
    }
  } catch {
    // Not a URL: only the string as a whole can be recognised.
  }
  // Longest first, so that the password inside the connection string does not split it.
  const masked = [...secrets].filter((s) => s !== "").sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const secret of masked) out = out.replaceAll(secret, "***");
    return out.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@]*@/gi, "$1***@");
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * `work`, unless `signal` aborts first: then a `cancelled` failure at once, and `work` is left to
 * settle on its own (its rejection is handled here, so it cannot go unhandled).
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(SqlAdapterError.cancelled(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(SqlAdapterError.cancelled(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

export { messageOf } from "../../util/message-of.ts";

/** The driver or system error code of a thrown value, if it has a string one. */
export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** Any connection-level failure: refused, unreachable, timed out, DNS, login, TLS, database. */
export const CONNECT_FAILED = "could not connect to the database";
/** Any statement-level failure without a message of its own below. */
export const QUERY_FAILED = "the query failed";
/** An undefined table or column (SQLSTATE 42P01/42703, MySQL 1146/1054). */
export const MISSING_RELATION = "a table or column of the collection does not exist";
/** The outbound policy refused the host's address; the address is not named. */
export const HOST_NOT_ALLOWED =
  "the database host is not allowed: it is a private, loopback, link-local or metadata address " +
  "(the operator can allow it with SITEVOICE_OUTBOUND_ALLOW)";
/** The outbound policy refused a Unix socket path (a `/…` host). */
export const LOCAL_SOCKET_NOT_ALLOWED =
  "the database host is not allowed: a Unix socket path reaches the service's own machine";

/**
 * The failure to show for a connection that could not be made or set up: the outbound policy's
 * refusal in words a site owner can act on, anything else CONNECT_FAILED. The caller logs the
 * reason first.
 */
export function connectFailure(error: unknown): SqlAdapterError {
  const refusal = outboundRefusal(error);
  if (refusal !== undefined) {
    return new SqlAdapterError(
      "refused",
      refusal.kind === "local-socket" ? LOCAL_SOCKET_NOT_ALLOWED : HOST_NOT_ALLOWED,
      refusal.code,
    );
  }
  return new SqlAdapterError("backend", CONNECT_FAILED, codeOf(error));
}
