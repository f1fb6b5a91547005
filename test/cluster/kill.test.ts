/**
 * Three instances behind HAProxy while one, then another, is killed with SIGKILL and started
 * again: every usage event a client saw acknowledged is stored exactly once, no client error
 * survives a client's retry, and a site change made through the balancer is visible on every
 * instance within 5 s.
 */
import { expect } from "chai";
import { startOpenAiStandin, type OpenAiStandin } from "../helpers/openai-standin.ts";
import { startCluster, type Cluster } from "./harness.ts";
import { eventWriter, makeSite, type ClusterSite } from "./workload.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the cluster through kill -9 of one instance, then another", function () {
  this.timeout(180_000);
  let openai: OpenAiStandin;
  let cluster: Cluster;
  let sites: ClusterSite[];

  before(async () => {
    openai = await startOpenAiStandin();
    cluster = await startCluster({
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
    });
    sites = [];
    for (const prefix of ["north", "south", "west"]) {
      sites.push(await makeSite(cluster.url, cluster.key, prefix));
    }
  });
  after(async () => {
    await cluster?.stop();
    await openai?.close();
  });

  it("stores every acknowledged usage event exactly once", async () => {
    const writers = sites.map((site) => eventWriter(cluster.url, site));
    await sleep(1_500);
    await cluster.kill(1);
    await sleep(2_000);
    await cluster.restart(1);
    await cluster.upstreams(3);
    await cluster.kill(2);
    await sleep(2_000);
    await cluster.restart(2);
    await cluster.upstreams(3);
    await sleep(1_000);
    await Promise.all(writers.map((writer) => writer.stop()));

    expect(
      writers.flatMap((w) => w.failures),
      "errors a client's retry did not hide",
    ).to.deep.equal([]);
    const acknowledged = writers.flatMap((w) => w.acknowledged);
    const answered = writers.flatMap((w) => w.eventIds);
    expect(acknowledged.length).to.be.greaterThan(100);
    expect(answered).to.have.length(acknowledged.length);
    // Each acknowledged event is in the database under the id its answer gave it…
    const found = await cluster.db("usage_events").whereIn("id", answered).pluck<string[]>("id");
    expect(
      answered.filter((id) => !found.includes(id)),
      "acknowledged, not stored",
    ).to.deep.equal([]);
    // … and nothing else was stored: no retry, replayed or not, made a second copy.
    const counts = await cluster
      .db("usage_events")
      .whereIn(
        "site_id",
        sites.map((s) => s.siteId),
      )
      .where({ type: "image_description" })
      .count<{ count: string }[]>({ count: "*" });
    expect(Number(counts[0]!.count)).to.equal(acknowledged.length);
  });

  it("shows a site change made through the balancer on every instance within 5 s", async () => {
    const site = sites[0]!;
    const name = `Renamed ${Date.now()}`;
    const changed = await fetch(`${cluster.url}/v1/sites/${site.siteId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${cluster.key}`, "content-type": "application/json" },
      body: JSON.stringify({ business_name: name }),
    });
    expect(changed.status).to.equal(200);
    const at = Date.now();
    // What the widget reads: each instance's cached config, asked directly.
    const seen = await Promise.all(
      cluster.instances.map(async (instance) => {
        for (;;) {
          const res = await fetch(`${instance.url}/v1/${site.siteId}/config`, {
            headers: { origin: site.origin },
          });
          const body = (await res.json()) as { data?: { business_name?: string } };
          if (body.data?.business_name === name) return Date.now() - at;
          if (Date.now() - at > 10_000) return Infinity;
          await sleep(50);
        }
      }),
    );
    expect(Math.max(...seen), `ms until seen: ${seen.join(", ")}`).to.be.below(5_000);
  });
});
