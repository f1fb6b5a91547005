/**
 * Reads a fetch Response's body up to a size: a backend or a provider chosen by someone else
 * could answer gigabytes. Past the cap (or when Content-Length already says so) the stream is
 * cancelled, which closes the connection, and the answer is undefined.
 */
export async function readCappedBody(
  response: Response,
  maxBytes: number,
): Promise<Buffer | undefined> {
  if (response.body === null) return Buffer.alloc(0);
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body.cancel().catch(() => undefined);
    return undefined;
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
