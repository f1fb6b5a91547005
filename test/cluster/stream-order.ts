/**
 * A stream's replay after a reconnection, when a batch's commit is slow. Event ids are made when
 * an event is recorded, before its batch commits, and a reconnecting client asks for the events
 * after the last id it read. So: an event X whose commit is held (here by the test holding its
 * rollup row, as a slow commit would), a later event Y recorded on another instance meanwhile,
 * the subscriber's connection dropped (a network blip, its instance killed), X let commit, the
 * subscriber back with the last id it read. Y must not be readable before X (its site's batches
 * commit in id order), and the replay must bring X then Y.
 */
import { openStream } from "../helpers/sse-client.ts";
import { openSession, pause, signedPost } from "./client.ts";
import type { Instance } from "./cluster.ts";
import type { World } from "./fixtures.ts";
import { withDb } from "./invariants.ts";

const QUARTER_HOUR = 15 * 60_000;

export interface OrderOutcome {
  /** The held event and the later one, as their writes were answered. */
  held: string;
  later: string;
  /** What the subscriber read of the two before X was let commit. */
  readWhileHeld: string[];
  /** The last id it read before its connection dropped. */
  lastRead: string;
  /** What the replay after `lastRead` brought of the two, in order. */
  replayed: string[];
}

export async function commitAfterLaterEvent(world: World): Promise<OrderOutcome> {
  const { client, cluster, shop } = world;
  const [sv1, sv2, sv3] = cluster.instances as [Instance, Instance, Instance];
  const visitor = await openSession(client, world.api, shop, "192.0.2.77");
  if (visitor === undefined) throw new Error("stream-order: no widget session");
  const event = (probe: string, type = "function_call") => ({
    type,
    ...(type === "function_call" ? { function_name: "order_probe" } : {}),
    metadata: { client_event_id: probe, probe },
  });
  // Not near a quarter hour's end: the held write must land on the rollup row locked below.
  const left = QUARTER_HOUR - (Date.now() % QUARTER_HOUR);
  if (left < 20_000) await pause(left + 1_000);
  const bucket = Date.now() - (Date.now() % QUARTER_HOUR);
  // The rollup row (site, quarter hour, function_call, order_probe) exists once one such event is stored.
  await signedPost(
    client,
    "order prime",
    sv1.url,
    visitor,
    "/analytics/event",
    event(`${visitor.sessionId}.prime`),
  );

  const stream = await openStream(`${sv3.url}/v1/${shop.siteId}/analytics/stream`, {
    Accept: "text/event-stream",
    Authorization: `Bearer ${cluster.firstKey}`,
  });
  const read = () => stream.events.map((e) => e.id ?? "");
  return withDb(world, async (db) => {
    const lock = await db.transaction();
    let heldWrite: ReturnType<typeof signedPost> | undefined;
    try {
      await lock.raw(
        "select * from usage_rollups where site_id = ? and bucket_start = ? and type = ? and function_name = ? for update",
        [shop.siteId, bucket, "function_call", "order_probe"],
      );
      // X: recorded now (its id made), its commit waiting for the row.
      heldWrite = signedPost(
        client,
        "order held",
        sv1.url,
        visitor,
        "/analytics/event",
        event(`${visitor.sessionId}.held`),
      );
      await pause(500);
      // Y: a later event, recorded on another instance while X waits.
      const laterWrite = signedPost(
        client,
        "order later",
        sv2.url,
        visitor,
        "/analytics/event",
        event(`${visitor.sessionId}.later`, "image_description"),
      );
      await pause(1_500);
      // Other events may arrive meanwhile (the last phase's slow searches record theirs late).
      const readBeforeCommit = read();
      stream.close();
      await lock.commit();
      const heldId = (await heldWrite).body!.data!.id as string;
      const laterId = (await laterWrite).body!.data!.id as string;
      const readWhileHeld = readBeforeCommit.filter((id) => id === heldId || id === laterId);
      const lastRead = read().at(-1) ?? "";
      const again = await openStream(`${sv3.url}/v1/${shop.siteId}/analytics/stream`, {
        Accept: "text/event-stream",
        Authorization: `Bearer ${cluster.firstKey}`,
        "Last-Event-ID": lastRead,
      });
      const deadline = Date.now() + 10_000;
      const replayed = () =>
        again.events.map((e) => e.id ?? "").filter((id) => id === heldId || id === laterId);
      while (replayed().length < 2 && Date.now() < deadline) await pause(50);
      again.close();
      return { held: heldId, later: laterId, readWhileHeld, lastRead, replayed: replayed() };
    } finally {
      if (!lock.isCompleted()) await lock.rollback();
      await heldWrite;
    }
  });
}
