/**
 * Issue 20, "Scale-out and faults": three `sitevoice serve` processes on PostgreSQL and Redis
 * behind HAProxy (deploy/haproxy.cfg as is), a mixed workload through HAProxy (widget sessions,
 * signed searches, usage events, leads with a webhook endpoint, site changes by the API and by
 * `sitevoice sync --remote`, crawl refreshes, analytics reads and streams, visitor-data exports)
 * while faults happen in order: kill -9 of one instance, then another; a Redis restart; a
 * PostgreSQL restart; the webhook receiver down; a backend slower than the adapter's deadline.
 * After each, the Done-when's invariants are checked against the database and the receivers.
 *
 * Run apart from `npm test` (.mocharc.json ignores the folder), and never beside other suites
 * on the same machine, since it restarts the machine's Redis and PostgreSQL under them (the
 * command is below).
 */
// CI=true npx mocha --no-config --node-option import=tsx --require test/setup.ts \
//   --timeout 120000 --exit 'test/cluster/**/*.test.ts'
import { expect } from "chai";
import { pause } from "./client.ts";
import {
  allReady,
  ensurePostgres,
  ensureRedis,
  killInstance,
  refreshBurst,
  restartInstance,
  restartPostgres,
  restartRedis,
} from "./faults.ts";
import { World } from "./fixtures.ts";
import {
  changesShown,
  jobsRanOnce,
  leadsDeliveredOnce,
  streamsComplete,
  usageEventsStoredOnce,
} from "./invariants.ts";
import { Records, Workload } from "./mixed-workload.ts";
import { commitAfterLaterEvent } from "./stream-order.ts";
import { StreamSubscriber } from "./streams.ts";
import { summary } from "./summary.ts";

interface Phase {
  name: string;
  /** Done while the workload runs. */
  fault: () => Promise<void>;
  slow?: boolean;
  /** How long leads may take to reach the receiver (its retries are a minute apart). */
  deliveryWaitMs?: number;
}

describe("the cluster under faults (issue 20)", function () {
  this.timeout(240_000);
  const world = new World();
  const records = new Records();
  const workload = new Workload(world, records);
  const subscribers: StreamSubscriber[] = [];
  const sv = (n: number) => world.cluster.instances[n - 1]!;
  let redisDownBurst: Awaited<ReturnType<typeof refreshBurst>> | undefined;
  const report = (problems: string[], phase: string) =>
    `${phase}:\n  ${problems.join("\n  ")}\n${problems.length > 0 ? world.cluster.diagnostics() : ""}`;

  before(async function () {
    await world.start(this);
    for (const instance of world.cluster.instances) {
      const subscriber = new StreamSubscriber(
        `subscriber on sv${instance.n}`,
        world.cluster,
        instance,
        world.shop.siteId,
        world.cluster.firstKey,
      );
      await subscriber.start();
      subscribers.push(subscriber);
    }
  });

  after(async () => {
    // Whatever happened, the machine's Redis and PostgreSQL are left running.
    await ensureRedis();
    await ensurePostgres();
    await workload.stop();
    await Promise.all(subscribers.map((s) => s.stop()));
    if (world.cluster !== undefined) {
      const names = phases.map((p) => p.name);
      // eslint-disable-next-line no-console -- what the run did, for whoever reads its output
      console.log(summary(names, records, world.client, subscribers));
      if (redisDownBurst) {
        // eslint-disable-next-line no-console -- the same
        console.log(`  refresh burst while Redis was away: ${JSON.stringify(redisDownBurst)}`);
      }
    }
    await world.stop();
  });

  const phases: Phase[] = [
    { name: "baseline", fault: () => pause(5_000) },
    {
      name: "kill -9 of sv1",
      fault: async () => {
        await pause(2_000);
        await killInstance(world, sv(1));
        await world.cluster.waitServerDown(sv(1));
        await pause(2_000);
      },
    },
    {
      name: "sv1 back, kill -9 of sv2",
      fault: async () => {
        await restartInstance(world, sv(1));
        await pause(1_000);
        await killInstance(world, sv(2));
        await world.cluster.waitServerDown(sv(2));
        await pause(2_000);
      },
    },
    {
      name: "sv2 back, Redis restarted",
      fault: async () => {
        await restartInstance(world, sv(2));
        await pause(1_000);
        // The documented fallback while Redis is away: each instance counts in its own memory.
        await restartRedis(3_000, async () => {
          await pause(500);
          redisDownBurst = await refreshBurst(world, "redis-down");
        });
        await allReady(world);
        await pause(2_000);
      },
    },
    {
      name: "PostgreSQL restarted",
      fault: async () => {
        await pause(2_000);
        await restartPostgres();
        await allReady(world);
        await pause(2_000);
      },
    },
    {
      name: "webhook receiver down",
      deliveryWaitMs: 100_000,
      fault: async () => {
        await pause(1_000);
        await world.stopReceiver();
        await pause(6_000);
        await world.startReceiver();
        await pause(2_000);
      },
    },
    { name: "slow adapter backend", slow: true, fault: () => pause(11_000) },
  ];

  for (const phase of phases) {
    describe(phase.name, () => {
      it("the fault, under the workload", async () => {
        workload.start(phase.name, { slow: phase.slow });
        try {
          await phase.fault();
        } finally {
          await workload.stop();
        }
        if (phase.slow) {
          const slow = records.slowQueries.filter((q) => q.phase === phase.name);
          expect(slow.length, "slow searches answered").to.be.greaterThan(0);
          for (const query of slow)
            expect(query).to.include({ status: 504, code: "adapter_timeout" });
        }
      });

      it("stores every acknowledged usage event exactly once", async () => {
        const problems = await usageEventsStoredOnce(world, records);
        expect(problems, report(problems, phase.name)).to.deep.equal([]);
      });

      it("delivers every lead to the receiver, exactly once after dedup by webhook-id", async () => {
        const problems = await leadsDeliveredOnce(world, records, phase.deliveryWaitMs ?? 20_000);
        expect(problems, report(problems, phase.name)).to.deep.equal([]);
      });

      it("runs each job once: crawls, visitor-data exports, one row per repeating job", async () => {
        const problems = await jobsRanOnce(world, records);
        expect(problems, report(problems, phase.name)).to.deep.equal([]);
      });

      it("holds the refresh limit (20 an hour a site) across the instances", async () => {
        const burst = await refreshBurst(world, phase.name);
        expect(burst).to.deep.equal({ admitted: 20, refused: 10, other: [] });
      });

      if (phase.name.includes("Redis")) {
        it("while Redis was away, admitted no more than each instance's own limit (3 × 20)", () => {
          expect(redisDownBurst, "the burst while Redis was away").to.not.equal(undefined);
          expect(redisDownBurst!.other).to.deep.equal([]);
          expect(redisDownBurst!.admitted).to.be.within(20, 60);
        });
      }

      it("shows each site change (API and sync) on every live instance within 5 s", () => {
        const problems = changesShown(records, phase.name);
        expect(problems, report(problems, phase.name)).to.deep.equal([]);
      });

      it("gives every stream subscriber every event, across reconnections", async () => {
        const { missed } = await streamsComplete(world, records, subscribers);
        expect(missed, report(missed, phase.name)).to.deep.equal([]);
      });

      it("gives each stream subscriber each event once, across reconnections", async () => {
        const { doubled } = await streamsComplete(world, records, subscribers);
        expect(doubled, report(doubled, phase.name)).to.deep.equal([]);
      });

      it("shows clients no error their retries did not hide", () => {
        const failures = world.client.failures.filter(
          (f) => f.phase === phase.name && !(f.op === "slow query" && f.status === 504),
        );
        const listed = failures
          .slice(0, 20)
          .map((f) => `${f.op}: ${f.status} ${f.code ?? ""} ${f.message}`);
        const message = `${failures.length} failures:\n  ${listed.join("\n  ")}`;
        expect(failures, `${message}\n${world.cluster.diagnostics()}`).to.deep.equal([]);
      });
    });
  }

  describe("a batch whose commit is slow (stream-order)", () => {
    // Event ids are made when an event is recorded, before its batch commits; a reconnection
    // replays the ids above Last-Event-ID. A site's batches commit in id order, so no event
    // committing late can hide below an id a subscriber has read.
    it("holds the site's later events until it commits, and a replay brings both in order", async () => {
      const outcome = await commitAfterLaterEvent(world);
      expect(outcome.held < outcome.later, "the held event has the lower id").to.equal(true);
      expect(outcome.readWhileHeld).to.deep.equal([]);
      expect(outcome.replayed).to.deep.equal([outcome.held, outcome.later]);
    });
  });
});
