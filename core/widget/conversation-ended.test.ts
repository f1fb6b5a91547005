import { expect } from "chai";
import type { SessionRow } from "../store/repos/sessions-repo.ts";
import { ERASED_FINGERPRINT } from "../store/repos/visitor-data-repo.ts";
import { conversationEnded } from "./conversation-ended.ts";

describe("conversation.ended", () => {
  const session = (fingerprint: string): SessionRow => ({
    id: "sess_01",
    site_id: "site-a",
    workspace_id: "ws_01",
    signing_secret: "enc:v1:x",
    user_fingerprint: fingerprint,
    ip_hash: null,
    page_url: null,
    created_at: Date.UTC(2026, 10, 26, 18),
    last_seen_at: Date.UTC(2026, 10, 26, 18, 5),
    ended_at: null,
    end_reason: null,
  });
  const end = {
    durationSeconds: 300,
    counts: {},
    reason: "visitor",
    at: Date.UTC(2026, 10, 26, 18, 5),
  };

  it("carries the visitor's fingerprint", () => {
    const fingerprint = "a".repeat(64);
    expect(conversationEnded(session(fingerprint), end).data.user_fingerprint).to.equal(
      fingerprint,
    );
  });

  it("carries null for a session whose visitor was erased before it ended", () => {
    expect(conversationEnded(session(ERASED_FINGERPRINT), end).data.user_fingerprint).to.equal(
      null,
    );
  });
});
