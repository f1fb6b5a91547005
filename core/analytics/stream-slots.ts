/**
 * The open usage streams of this instance, counted per site and per holder (an API key, a
 * dashboard member), from the moment a stream is let in until it ends. A stream's setup waits on
 * the store and the socket, so a count of live subscribers checked before it lets a burst of
 * simultaneous opens through; a slot taken at once, before that setup, does not.
 */
import { errors } from "../errors.ts";

export interface StreamCaps {
  /** Open streams one site may have on this instance. */
  perSite: number;
  /** Open streams one holder may have on this instance, over all its sites. */
  perKey: number;
}

export class StreamSlots {
  private readonly sites = new Map<string, number>();
  private readonly holders = new Map<string, number>();

  /**
   * Takes a slot for a stream of `siteId` held by `holder`, or throws 429 `rate_limited` naming
   * the cap it would pass (`details.per`: "site" or "key"). Synchronous, so no other open comes
   * between the count and the slot. The returned release gives the slot back; calling it again
   * does nothing.
   */
  take(siteId: string, holder: string, caps: StreamCaps): () => void {
    if ((this.sites.get(siteId) ?? 0) >= caps.perSite) throw refusal(caps.perSite, "site");
    if ((this.holders.get(holder) ?? 0) >= caps.perKey) throw refusal(caps.perKey, "key");
    add(this.sites, siteId, 1);
    add(this.holders, holder, 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      add(this.sites, siteId, -1);
      add(this.holders, holder, -1);
    };
  }

  /** Slots held for `siteId`'s streams. */
  held(siteId: string): number {
    return this.sites.get(siteId) ?? 0;
  }
}

function add(counts: Map<string, number>, key: string, by: number) {
  const count = (counts.get(key) ?? 0) + by;
  if (count === 0) counts.delete(key);
  else counts.set(key, count);
}

const refusal = (limit: number, per: "site" | "key") =>
  errors.rateLimited(30, { limit, open_streams: limit, per });
