/**
 * `POST /v1/:siteId/session/call`: the widget reports the provider's id for the call it has just
 * connected (the `Location` of the provider's SDP answer), and the service keeps it with the
 * session, then joins it to control it from the server (core/voice/). A call belongs to the
 * session that reported it first: the same report again is answered as the first, another
 * session's is 409.
 */
import { errors } from "../errors.ts";
import type { SessionRow } from "../store/repos/sessions-repo.ts";
import type { VoiceCallRow } from "../store/repos/voice-calls-repo.ts";
import type { Store } from "../store/store.ts";

export class CallService {
  private readonly now: () => number;

  constructor(
    private readonly parts: {
      store: Store;
      /** Joins a reported call to control it from the server (core/voice/); never throws. */
      control?: { join(call: VoiceCallRow): Promise<boolean> };
      now?: () => number;
    },
  ) {
    this.now = parts.now ?? Date.now;
  }

  /** Keeps `callId` as a call of `session`; the stored call. */
  async report(session: SessionRow, callId: string): Promise<VoiceCallRow> {
    const call = await this.parts.store.voiceCalls.claim({
      call_id: callId,
      session_id: session.id,
      site_id: session.site_id,
      created_at: this.now(),
      ended_at: null,
      end_reason: null,
      controller: null,
      lease_until: null,
    });
    if (call.session_id !== session.id) {
      throw errors.conflict("This call id was reported by another session", {
        field: "call_id",
      });
    }
    // Not awaited: the widget's answer does not wait for the provider.
    void this.parts.control?.join(call);
    return call;
  }
}
