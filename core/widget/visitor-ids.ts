/**
 * Visitor IDs (`user_fingerprint`): a keyed hash of a browser's IP and user agent under a key of
 * the site's workspace, so one browser has one ID on every site of a workspace and unrelated IDs
 * in other workspaces: two businesses cannot join what they hold on a visitor by it. A
 * workspace's key is made on its first visitor (the first instance to write it wins, and every
 * instance reads that one), kept sealed in the store, and held opened here for the workspaces
 * seen most recently.
 */
import crypto from "node:crypto";
import { LRUCache } from "lru-cache";
import { open, seal, type KeyRing } from "../security/secret-box.ts";
import type { Store } from "../store/store.ts";

/** Workspaces whose opened key is held; the least recently used leaves first. */
const KEYS_HELD = 10_000;

export interface Visitor {
  ip: string;
  userAgent: string;
}

export class VisitorIds {
  private readonly keys: LRUCache<string, Buffer>;

  constructor(
    private readonly store: Store,
    private readonly ring: KeyRing,
    private readonly now: () => number = Date.now,
    options: { maxHeld?: number } = {},
  ) {
    // fetch() runs one load per workspace however many ask at once; a failed load is not kept.
    this.keys = new LRUCache<string, Buffer>({
      max: options.maxHeld ?? KEYS_HELD,
      fetchMethod: (workspaceId) => this.load(workspaceId),
    });
  }

  /** The ID of `visitor` in `workspaceId` (64 lower-case hex). */
  async of(workspaceId: string, visitor: Visitor): Promise<string> {
    const key = await this.keys.forceFetch(workspaceId);
    return crypto
      .createHmac("sha256", key)
      .update(`${visitor.ip}\n${visitor.userAgent}`)
      .digest("hex");
  }

  /** The workspace's key from the store, made and kept there first if it has none yet. */
  private async load(workspaceId: string): Promise<Buffer> {
    const secrets = this.store.workspaceSecrets;
    const sealed =
      (await secrets.visitorIdKey(workspaceId)) ??
      (await secrets.keepFirstVisitorIdKey({
        workspace_id: workspaceId,
        visitor_id_key: seal(this.ring, crypto.randomBytes(32).toString("base64url")),
        created_at: this.now(),
      }));
    return Buffer.from(open(this.ring, sealed), "base64url");
  }
}
