/** GET /v1/user-data/lookup's answer: the leads of a contact, by their visitor's fingerprint. */
import type { LeadRow } from "../store/repos/leads-repo.ts";

export interface FingerprintFound {
  user_fingerprint: string;
  lead_ids: string[];
  last_captured_at: string;
}

/** Each fingerprint of `leads` with its leads' ids and last capture, the latest first. */
export function fingerprintsOf(leads: readonly LeadRow[]): FingerprintFound[] {
  const byFingerprint = new Map<string, { ids: string[]; last: number }>();
  for (const lead of leads) {
    if (lead.user_fingerprint === null) continue;
    const found = byFingerprint.get(lead.user_fingerprint) ?? { ids: [], last: 0 };
    found.ids.push(lead.id);
    found.last = Math.max(found.last, Number(lead.created_at));
    byFingerprint.set(lead.user_fingerprint, found);
  }
  return [...byFingerprint]
    .sort(([, a], [, b]) => b.last - a.last)
    .map(([fingerprint, found]) => ({
      user_fingerprint: fingerprint,
      lead_ids: found.ids,
      last_captured_at: new Date(found.last).toISOString(),
    }));
}
