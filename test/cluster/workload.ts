/**
 * What clients do to the cluster while faults happen, as real clients would: sites made through
 * the balancer, widget sessions from the token endpoint, and signed usage-event writes that a
 * client retries (same bytes, same `client_event_id`s) on a failure a retry can hide: a refused or
 * reset connection, 502, 503, 504 from the balancer. What was acknowledged is recorded.
 */
import crypto from "node:crypto";
import { signBody } from "../helpers/widget-signature.ts";

export interface ClusterSite {
  siteId: string;
  origin: string;
  session: { id: string; secret: string };
}

/** Statuses a client retries: the balancer had no instance, or lost the one it asked. */
const RETRIED = new Set([502, 503, 504]);

export async function makeSite(url: string, key: string, prefix: string): Promise<ClusterSite> {
  const siteId = `${prefix}-${crypto.randomBytes(3).toString("hex")}`;
  const domain = `${siteId}.example`;
  const created = await fetch(`${url}/v1/sites`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      site_id: siteId,
      business_name: `Shop ${siteId}`,
      business_description: "A shop in the cluster suite",
      domain,
    }),
  });
  if (created.status !== 201) throw new Error(`site: ${created.status} ${await created.text()}`);
  const origin = `https://${domain}`;
  const token = await fetch(`${url}/v1/${siteId}/token`, {
    method: "POST",
    headers: { origin, "content-type": "application/json" },
    body: "{}",
  });
  const body = (await token.json()) as { data?: { session_id: string; signing_secret: string } };
  if (token.status !== 200 || body.data === undefined) {
    throw new Error(`token: ${token.status} ${JSON.stringify(body)}`);
  }
  return {
    siteId,
    origin,
    session: { id: body.data.session_id, secret: body.data.signing_secret },
  };
}

/** A signed POST of `body` to `path` of the site, retried as a client would; its answer. */
export async function signedWrite(
  url: string,
  site: ClusterSite,
  path: string,
  body: string,
  give: { upMs: number } = { upMs: 20_000 },
): Promise<{ status: number; json: unknown }> {
  const signature = await signBody(site.session.secret, body);
  const deadline = Date.now() + give.upMs;
  for (;;) {
    try {
      const res = await fetch(`${url}/v1/${site.siteId}${path}`, {
        method: "POST",
        headers: {
          origin: site.origin,
          "content-type": "application/json",
          "x-service-session": site.session.id,
          "x-service-signature": signature,
        },
        body,
      });
      if (!RETRIED.has(res.status) || Date.now() > deadline) {
        return { status: res.status, json: await res.json().catch(() => undefined) };
      }
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Writes batches of usage events to `site` until stopped, each event with a `client_event_id`
 * of its own; the ids acknowledged (202), the event ids answered for them, and every answer that
 * was not 202 after the client's retries.
 */
export function eventWriter(url: string, site: ClusterSite, batch = 4, everyMs = 500) {
  /** The client ids acknowledged, and the event ids the answers gave them. */
  const acknowledged: string[] = [];
  const eventIds: string[] = [];
  const failures: string[] = [];
  let stopped = false;
  let n = 0;
  const loop = (async () => {
    while (!stopped) {
      const ids = Array.from({ length: batch }, () => `${site.siteId}-e${n++}`);
      const body = JSON.stringify({
        events: ids.map((id) => ({ type: "image_description", metadata: { client_event_id: id } })),
      });
      const answer = await signedWrite(url, site, "/analytics/event", body).catch(
        (error: Error) => ({ status: 0, json: error.message }),
      );
      if (answer.status === 202) {
        acknowledged.push(...ids);
        eventIds.push(...((answer.json as { data: { ids: string[] } }).data.ids ?? []));
      } else failures.push(`${answer.status} ${JSON.stringify(answer.json)}`);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    acknowledged,
    eventIds,
    failures,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
