/**
 * Site changes while faults happen, both ways a site changes: the API (`PATCH /v1/sites/:id`
 * through HAProxy) and a CI job's `sitevoice sync --remote` of a changed file. After each
 * acknowledged change, every live instance is read directly (by its port, the widget's config,
 * which goes through the instance's site cache) until it shows the new version.
 */
import fs from "node:fs";
import path from "node:path";
import { runToEnd } from "../helpers/cli-process.ts";
import { pause } from "./client.ts";
import type { World } from "./fixtures.ts";
import type { Change, Records } from "./mixed-workload.ts";

/** What a loop asks while it runs: whether to stop, and the phase to file under. */
export interface Run {
  stopped(): boolean;
  phase(): string;
}

export class SiteChanges {
  private apiCount = 0;
  private syncCount = 0;

  constructor(
    private readonly world: World,
    private readonly records: Records,
  ) {}

  async api(run: Run): Promise<void> {
    const { client, propApi } = this.world;
    while (!run.stopped()) {
      const name = `API change ${++this.apiCount}`;
      const answer = await client.json(
        "patch site",
        `${this.world.api}/sites/${propApi.siteId}`,
        "PATCH",
        {
          business_name: name,
        },
        { headers: this.world.auth },
      );
      if (answer.status === 200) await this.shown(run, "api", propApi, answer.body!.meta!.version);
      await pause(300);
    }
  }

  /** `sitevoice sync --remote`: a CI job applying a changed file; run again when it failed on the way. */
  async sync(run: Run): Promise<void> {
    const { cluster, propYaml } = this.world;
    const file = path.join(cluster.dir, "sites", `${propYaml.siteId}.yaml`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    while (!run.stopped()) {
      fs.writeFileSync(
        file,
        [
          "schema_version: 1",
          `site_id: ${propYaml.siteId}`,
          `business_name: Sync change ${++this.syncCount}`,
          "business_description: Changed by sitevoice sync while faults happen",
          "domain: prop-yaml.invalid",
          "industry: general",
          "",
        ].join("\n"),
      );
      let version: number | undefined;
      let output = "";
      for (let attempt = 0; attempt < 10 && version === undefined; attempt++) {
        const result = await runToEnd(["sync", file, "--remote", cluster.url], cluster.dir, {
          SITEVOICE_API_KEY: cluster.firstKey,
          LOG_LEVEL: "warn",
        });
        output = result.output;
        // A run after one whose answer was lost on the way finds the file applied: unchanged.
        const done = /(?:updated|created|unchanged) \(?(?:prop-yaml )?.*?version (\d+)\)/.exec(
          output,
        );
        if (result.code === 0 && done) version = Number(done[1]);
        else if (!/50[23]|ECONNRESET|ECONNREFUSED|fetch failed|socket/i.test(output)) break;
        else await pause(500);
      }
      if (version === undefined) {
        this.world.client.failures.push({
          phase: run.phase(),
          op: "sync",
          status: 0,
          message: output,
          attempts: 10,
        });
        await pause(1_000);
        continue;
      }
      await this.shown(run, "sync", propYaml, version);
    }
  }

  /**
   * Reads the site's config on every instance serving when the change was acknowledged (not one
   * still starting), by its own port, until it has `version`.
   */
  private async shown(
    run: Run,
    kind: Change["kind"],
    site: { siteId: string; origin: string },
    version: number,
  ) {
    const acked = Date.now();
    const change: Change = {
      kind,
      siteId: site.siteId,
      version,
      phase: run.phase(),
      shownAfter: {},
    };
    await Promise.all(
      this.world.cluster.instances
        .filter((i) => i.serving)
        .map(async (instance) => {
          for (;;) {
            const seen = await fetch(`${instance.url}/v1/${site.siteId}/config`, {
              headers: { Origin: site.origin },
              signal: AbortSignal.timeout(2_000),
            })
              .then(async (res) =>
                res.ok ? ((await res.json()) as { data: { version: number } }).data.version : 0,
              )
              .catch(() => 0);
            const after = Date.now() - acked;
            if (seen >= version) return void (change.shownAfter[`sv${instance.n}`] = after);
            if (!instance.serving) return void (change.shownAfter[`sv${instance.n}`] = -1);
            if (after > 15_000) return void (change.shownAfter[`sv${instance.n}`] = Infinity);
            await pause(50);
          }
        }),
    );
    this.records.changes.push(change);
  }
}
