/**
 * The messages the live stream's instances exchange on the usage channel: each names an instance,
 * a site and the ids of a batch of events stored there (ids gathered for `delayMs`, at most 100 a
 * message: PostgreSQL's NOTIFY payload is under 8,000 bytes). A message is only a prompt: who
 * hears it reads the site's events from the store.
 */
import type { Channel } from "../pubsub/channel.ts";

/** A message on the usage channel: instance, site, the ids of events stored. */
export interface Stored {
  i: string;
  s: string;
  e: string[];
}

/** The ids one message carries at most. */
const IDS_PER_MESSAGE = 100;

export class StoredAnnouncer {
  private readonly unpublished = new Map<string, string[]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly channel: Channel,
    /** This instance's name in its messages, so it skips its own. */
    readonly instance: string,
    private readonly delayMs: number,
  ) {}

  /** Announces `id`, stored for `siteId`, within `delayMs`. */
  add(siteId: string, id: string) {
    const ids = this.unpublished.get(siteId);
    if (ids === undefined) this.unpublished.set(siteId, [id]);
    else ids.push(id);
    this.timer ??= setTimeout(() => void this.publish(), this.delayMs);
  }

  /** Publishes what is waiting now. */
  async publish(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batches = [...this.unpublished];
    this.unpublished.clear();
    for (const [site, ids] of batches) {
      for (let at = 0; at < ids.length; at += IDS_PER_MESSAGE) {
        const message: Stored = {
          i: this.instance,
          s: site,
          e: ids.slice(at, at + IDS_PER_MESSAGE),
        };
        await this.channel.publish(JSON.stringify(message));
      }
    }
  }
}

export function parseStored(message: string): Stored | undefined {
  try {
    const parsed = JSON.parse(message) as Partial<Stored>;
    const ok =
      typeof parsed.i === "string" &&
      typeof parsed.s === "string" &&
      Array.isArray(parsed.e) &&
      parsed.e.every((id) => typeof id === "string");
    return ok ? (parsed as Stored) : undefined;
  } catch {
    return undefined;
  }
}
