/**
 * The keys signed widget writes are recorded under, so that the same signed request sent again
 * (a retry after a lost answer, or a copy replayed by whoever saw it) records nothing new and gets
 * the first answer. Each table holds its key under a unique index with the site, so the database
 * settles copies that arrive at once or at two instances.
 *
 * A key is scoped to the session: the same body in another session is another write. Two genuine
 * writes with identical bodies in one session must differ somewhere, which is what the body's
 * client id (`client_id`, or a usage event's `metadata.client_event_id`) is for.
 */
import crypto from "node:crypto";

export type SignedWrite = "lead" | "event" | "transcript";

const sha256 = (...parts: (string | Buffer)[]) => {
  const hash = crypto.createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
};

/** The key of a signed body: its hash, with the kind of write and the session. */
export function replayKey(sessionId: string, kind: SignedWrite, body: Buffer): string {
  return sha256(`${kind}\n${sessionId}\n`, body);
}

/**
 * The key of a usage event: the client's own id for it when it gave one (a retry may re-encode
 * the body, but keeps its id), else the signed body's. 66 characters, within the column.
 */
export function eventKey(sessionId: string, body: Buffer, clientId: string | undefined): string {
  return clientId === undefined
    ? `b:${replayKey(sessionId, "event", body)}`
    : `c:${sha256(`${sessionId}\n`, clientId)}`;
}

/**
 * The key of the event at `index` of a signed batch (`{events: [...]}`): its client id's, exactly
 * as eventKey (so an event counts once whether it came alone or in a batch), else the batch body's
 * hash with the index. The same batch sent again gives each event its key again; another batch, or
 * a single event with the same bytes, gives other keys.
 */
export function batchEventKey(
  sessionId: string,
  body: Buffer,
  index: number,
  clientId: string | undefined,
): string {
  return clientId === undefined
    ? `b:${sha256(`event-batch\n${sessionId}\n${index}\n`, body)}`
    : eventKey(sessionId, body, clientId);
}
