/** The text of any thrown value: an Error's message, an object's `message`, or the value as text. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null && "message" in error) {
    return String((error as { message: unknown }).message);
  }
  return String(error);
}

/** `messageOf`, followed by the message of its `cause` when that adds something. */
export function messageWithCause(error: unknown): string {
  const base = messageOf(error);
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause === undefined || cause === null) return base;
  const because = messageOf(cause);
  return base.includes(because) ? base : `${base}: ${because}`;
}
