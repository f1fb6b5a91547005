/**
 * A run's failure as text, whatever was thrown. agenda keeps an Error's message as the job's
 * reason and hands anything else to the backend as it is: an object or an array that
 * better-sqlite3 cannot bind (the run's last save then throws, and the job stays locked until its
 * lock expires), that MySQL writes as "[object Object]" and PostgreSQL's driver as an array
 * literal. A reason is stored as text instead: an Error's message, a string as it is, anything
 * else as JSON (`{"code":"E_RELAY"}`, `[1,2]`, `502`, `null`), or where JSON has no text for it
 * (undefined, a BigInt, a function, a cycle) as `String(value)`.
 */

/** `reason` as the text a job's failure is stored with. */
export function failReasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  if (typeof reason === "string") return reason;
  try {
    const json = JSON.stringify(reason) as string | undefined;
    if (json !== undefined) return json;
  } catch {
    // a BigInt or a cycle: String() below
  }
  return String(reason);
}

/**
 * What a run threw, as an Error agenda can read: itself when it is one, else an Error whose
 * message is its text. agenda reads `.message` of what a run threw, which fails on undefined or
 * null (the job was then saved without a reason).
 */
export function asRunError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(failReasonText(thrown), { cause: thrown });
}
