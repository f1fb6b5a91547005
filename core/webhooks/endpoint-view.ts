/**
 * A webhook endpoint as the API answers it: its subscription and state, never its secrets in
 * clear. The secret is masked as sites mask theirs (`••••` and the last 4 characters); only the
 * answer that creates the endpoint carries it whole (`createdEndpointView`), once.
 */
import { maskSecret } from "../sites/site-secrets.ts";
import type { WebhookEndpointRow } from "../store/repos/webhook-endpoints-repo.ts";

export type WebhookEndpointView = ReturnType<typeof endpointView>;

const isoTime = (ms: number) => new Date(ms).toISOString();

/** The JSON array of site ids a row holds, or null for every site of the workspace. */
export const siteIdsOf = (row: Pick<WebhookEndpointRow, "site_ids">): string[] | null =>
  row.site_ids === null ? null : (JSON.parse(row.site_ids) as string[]);

/** The endpoint as read; `secret` is its current secret opened, shown masked. */
export function endpointView(row: WebhookEndpointRow, secret: string) {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    site_ids: siteIdsOf(row),
    enabled: Boolean(row.enabled),
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    disabled_at: row.disabled_at === null ? null : isoTime(row.disabled_at),
    disabled_reason: row.disabled_reason,
    secret: maskSecret(secret),
  };
}

/** The answer of a create: the endpoint with its new secret in clear, the one time it is shown. */
export function createdEndpointView(row: WebhookEndpointRow, secret: string): WebhookEndpointView {
  return { ...endpointView(row, secret), secret };
}
