/**
 * Done-when 4: 5,000 signed event writes from 50 concurrent clients, with a graceful restart in
 * the middle, leave exactly 5,000 events in the store, and retried writes with the same client id
 * count once. The real CLI serves in a child process on PostgreSQL, so SIGTERM is a real graceful
 * stop; a second `serve` takes over the same port while the clients keep retrying through the
 * gap. Every signature is computed here with Web Crypto, not with the service's own code.
 *
 * The events limit is 600 per minute per site, so the writes are spread over 10 sites: 5 clients
 * per site, 100 events per client, and every 10th event sent once more after its 202. Each client
 * has its own keep-alive connection, as 50 browsers would, and retries a write (the same bytes,
 * so the same client id and signature) on a connection error, a 503 or no answer.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import knexFactory from "knex";
import { freePort, run, stop, type Run } from "./helpers/cli-process.ts";
import { startOpenAiStandin, type OpenAiStandin } from "./helpers/openai-standin.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";
import { signBody } from "./helpers/widget-signature.ts";

const postgres = databaseTargets.find((t) => t.client === "postgres")!;

const SITES = 10;
const CLIENTS_PER_SITE = 5;
const EVENTS_PER_CLIENT = 100;
const CLIENTS = SITES * CLIENTS_PER_SITE;
const TOTAL = CLIENTS * EVENTS_PER_CLIENT;
/** The restart starts once this many writes are acknowledged. */
const RESTART_AFTER = 2_000;
/** A write not answered within this long is given up and retried. */
const ANSWER_WITHIN_MS = 5_000;
/** A client that cannot get one write acknowledged within this long fails the test. */
const WRITE_DEADLINE_MS = 60_000;
/** A graceful stop finishes its open requests and flushes; it should not take longer. */
const STOP_WITHIN_MS = 10_000;

const siteId = (n: number) => `durable-${n}`;
const originOf = (n: number) => `https://durable-${n}.example`;

/** Resolves once the service answers its health check; rejects if it exits first. */
async function healthy(started: Run, base: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (started.child.exitCode !== null) throw new Error(`service exited: ${started.output()}`);
    if (Date.now() > deadline) throw new Error(`service did not start: ${started.output()}`);
    try {
      const res = await fetch(`${base}/v1/health`, { signal: AbortSignal.timeout(1_000) });
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The first API key the service prints, once it has printed it (30 s at most). */
async function printedKey(started: Run): Promise<string | undefined> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const key = /(vk_test_[A-Za-z0-9_-]{32})/.exec(started.output())?.[1];
    if (key !== undefined || Date.now() > deadline || started.child.exitCode !== null) return key;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One POST on the client's own agent; rejects on a connection error or no answer in time. */
function post(
  agent: http.Agent,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: "POST",
        agent,
        headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
        timeout: ANSWER_WITHIN_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
        res.on("close", () => {
          if (!res.complete) reject(new Error("the answer was cut off"));
        });
      },
    );
    req.on("timeout", () => req.destroy(new TimeoutError()));
    req.on("error", reject);
    req.end(body);
  });
}

class TimeoutError extends Error {
  constructor() {
    super(`no answer within ${ANSWER_WITHIN_MS} ms`);
  }
}

interface Session {
  site: number;
  session_id: string;
  signing_secret: string;
}

/** What the clients saw, for the assertions and the report. */
interface Tally {
  acknowledged: number;
  /** Every id a 202 answered, by client event id (more than one would be a double count). */
  ids: Map<string, Set<string>>;
  /** The re-sends after a 202: the first id and the one the re-send got. */
  resent: { clientId: string; first: string; again: string }[];
  retries: { connection: number; timeout: number; unavailable: number };
  /** Any answer other than 202 or 503, with its body. */
  unexpected: { clientId: string; status: number; body: string }[];
}

describe("event durability through a graceful restart (PostgreSQL)", function () {
  this.timeout(120_000);
  let database: TestDatabase | undefined;
  let openai: OpenAiStandin | undefined;
  let cwd: string;
  let current: Run | undefined;

  before(async function () {
    database = await createTestDatabase(postgres);
    if (database === undefined) missing(this, postgres.label);
    openai = await startOpenAiStandin();
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-durability-"));
  });
  after(async () => {
    if (current !== undefined && current.child.exitCode === null) await stop(current);
    await openai?.close();
    await database?.drop();
    if (cwd !== undefined) fs.rmSync(cwd, { recursive: true, force: true });
  });

  // One scenario on purpose: the restart must happen while the clients write.
  it("stores each of 5,000 acknowledged writes exactly once across a SIGTERM and a restart in the middle, re-sent writes answering their first id, both instances stopping gracefully", async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      DATABASE_URL: database!.url,
      // Fixed, so the session secrets sealed by the first instance open in the second.
      SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
      SITEVOICE_DATA_DIR: path.join(cwd, "data"),
      SITEVOICE_SITES_DIR: "",
      SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
      OPENAI_API_KEY: openai!.apiKey,
      OPENAI_BASE_URL: openai!.baseUrl,
    };
    const outputs: string[] = [];
    const printed = () => [...outputs, current?.output() ?? ""].join("\n--- restart ---\n");

    const first = run(["serve"], cwd, env);
    current = first;
    await healthy(first, base);
    // Printed once start-up is over, which may be a moment after the first health answer.
    const key = await printedKey(first);
    expect(key, first.output()).to.be.a("string");

    // Ten sites, and a session on each minted through the token endpoint (10 per minute per IP).
    const sessions: Session[] = [];
    for (let n = 0; n < SITES; n += 1) {
      const created = await fetch(`${base}/v1/sites`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify({
          site_id: siteId(n),
          business_name: `Durable ${n}`,
          business_description: "A site whose events must survive a restart",
          domain: `durable-${n}.example`,
        }),
      });
      expect(created.status, await created.clone().text()).to.equal(201);
      const token = await fetch(`${base}/v1/${siteId(n)}/token`, {
        method: "POST",
        headers: { Origin: originOf(n), "Content-Type": "application/json" },
        body: "{}",
      });
      const answer = (await token.json()) as { data: Omit<Session, "site"> };
      expect(token.status, JSON.stringify(answer)).to.equal(200);
      sessions.push({ site: n, ...answer.data });
    }

    const tally: Tally = {
      acknowledged: 0,
      ids: new Map(),
      resent: [],
      retries: { connection: 0, timeout: 0, unavailable: 0 },
      unexpected: [],
    };
    let reachedRestartPoint: () => void = () => {};
    const restartPoint = new Promise<void>((resolve) => (reachedRestartPoint = resolve));
    // Which instance answered: the first, the first after its SIGTERM, or (once it has exited)
    // the second.
    let phase: "first" | "stopping" | "second" = "first";
    const acknowledgedIn = { first: 0, stopping: 0, second: 0 };

    /** One signed write, retried as a widget would until it is acknowledged; its event id. */
    async function write(agent: http.Agent, session: Session, clientId: string): Promise<string> {
      const body = JSON.stringify({
        type: "function_call",
        function_name: "search_database",
        metadata: { client_event_id: clientId },
      });
      const headers = {
        Origin: originOf(session.site),
        "Content-Type": "application/json",
        "X-Service-Session": session.session_id,
        "X-Service-Signature": await signBody(session.signing_secret, body),
      };
      const deadline = Date.now() + WRITE_DEADLINE_MS;
      for (let attempt = 0; ; attempt += 1) {
        if (Date.now() > deadline) {
          throw new Error(`${clientId} was not acknowledged within ${WRITE_DEADLINE_MS} ms`);
        }
        let status: number;
        let text: string;
        try {
          const url = `${base}/v1/${siteId(session.site)}/analytics/event`;
          ({ status, text } = await post(agent, url, headers, body));
        } catch (error) {
          if (error instanceof TimeoutError) tally.retries.timeout += 1;
          else tally.retries.connection += 1;
          await backoff(attempt);
          continue;
        }
        if (status === 202) {
          const id = (JSON.parse(text) as { data: { id: string } }).data.id;
          const seen = tally.ids.get(clientId) ?? new Set<string>();
          seen.add(id);
          tally.ids.set(clientId, seen);
          return id;
        }
        if (status === 503) {
          tally.retries.unavailable += 1;
          await backoff(attempt);
          continue;
        }
        // Anything else is a finding; a 5xx is retried so the count can still be checked.
        tally.unexpected.push({ clientId, status, body: text });
        if (status < 500) throw new Error(`${clientId} answered ${status}: ${text}`);
        await backoff(attempt);
      }
    }

    async function client(c: number): Promise<void> {
      const session = sessions[c % SITES] as Session;
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let n = 0; n < EVENTS_PER_CLIENT; n += 1) {
          const clientId = `c${c}-${n}`;
          const id = await write(agent, session, clientId);
          tally.acknowledged += 1;
          acknowledgedIn[phase] += 1;
          if (tally.acknowledged === RESTART_AFTER) reachedRestartPoint();
          if (n % 10 === 9) {
            // Sent once more after its 202, as a widget that missed the answer would.
            const again = await write(agent, session, clientId);
            tally.resent.push({ clientId, first: id, again });
          }
        }
      } finally {
        agent.destroy();
      }
    }

    const started = Date.now();
    const timeline: Record<string, number> = {};
    const mark = (what: string) => (timeline[what] = Date.now() - started);
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    const restart = (async () => {
      await Promise.race([restartPoint, Promise.allSettled(clients)]);
      if (tally.acknowledged < RESTART_AFTER)
        throw new Error("the clients failed before the restart");
      phase = "stopping";
      mark("sigterm");
      const code = await stop(first);
      phase = "second";
      mark("first_exited");
      outputs.push(first.output());
      expect(code, first.output()).to.equal(0);
      const second = run(["serve"], cwd, env);
      current = second;
      await healthy(second, base);
      mark("second_serving");
    })();

    const results = await Promise.allSettled([restart, ...clients]);
    const elapsed = Date.now() - started;
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    const summary = JSON.stringify({
      elapsed_ms: elapsed,
      timeline,
      acknowledged: tally.acknowledged,
      acknowledgedIn,
      retries: tally.retries,
      unexpected: tally.unexpected.slice(0, 5),
      failures: failures.slice(0, 3).map((f) => String(f.reason)),
    });
    // eslint-disable-next-line no-console -- what the run went through, for the reader
    console.log(`      ${summary}`);
    expect(failures, `${summary}\n${printed()}`).to.deep.equal([]);
    expect(tally.unexpected, `${summary}\n${printed()}`).to.deep.equal([]);
    expect(tally.acknowledged).to.equal(TOTAL);

    // A client id never got two different ids, and every re-send answered with the first.
    for (const [clientId, ids] of tally.ids) expect([...ids], clientId).to.have.length(1);
    expect(tally.ids.size).to.equal(TOTAL);
    expect(tally.resent).to.have.length(TOTAL / 10);
    for (const { clientId, first: id, again } of tally.resent) expect(again, clientId).to.equal(id);

    // The store, read directly: exactly 5,000, once each, under the acknowledged ids.
    const knex = knexFactory({ client: "pg", connection: database!.url, pool: { min: 0, max: 1 } });
    try {
      const rows = await knex<{ id: string; site_id: string; client_event_id: string | null }>(
        "usage_events",
      )
        .select("id", "site_id", "client_event_id")
        .where("type", "function_call")
        .whereIn(
          "site_id",
          Array.from({ length: SITES }, (_, n) => siteId(n)),
        );
      expect(rows).to.have.length(TOTAL);
      // Each client id's event under the id it was acknowledged with, and no other row: the
      // stored dedupe key is the service's own (scoped to the session), so rows match by id.
      const stored = new Map(rows.map((row) => [row.id, row]));
      expect(new Set(rows.map((row) => row.client_event_id)).size, "distinct keys").to.equal(TOTAL);
      for (const [clientId, ids] of tally.ids) {
        const row = stored.get([...ids][0]!);
        expect(row, `${clientId} acknowledged but not stored`).not.to.equal(undefined);
        const c = Number(/^c(\d+)-/.exec(clientId)![1]);
        expect(row!.site_id, clientId).to.equal(siteId(c % SITES));
      }
      for (let n = 0; n < SITES; n += 1) {
        expect(
          rows.filter((row) => row.site_id === siteId(n)),
          siteId(n),
        ).to.have.length(CLIENTS_PER_SITE * EVENTS_PER_CLIENT);
      }
    } finally {
      await knex.destroy();
    }

    // The restart really was in the middle. After SIGTERM the first instance answers only the
    // writes already in flight (at most one per client) and stops promptly; the second one
    // acknowledges the rest.
    expect(acknowledgedIn.first, summary).to.be.at.least(RESTART_AFTER);
    expect(acknowledgedIn.stopping, `answered after SIGTERM: ${summary}`).to.be.at.most(CLIENTS);
    expect(timeline.first_exited! - timeline.sigterm!, `graceful stop, ms: ${summary}`).to.be.below(
      STOP_WITHIN_MS,
    );
    expect(acknowledgedIn.second, summary).to.be.at.least(TOTAL / 4);

    expect(await stop(current!)).to.equal(0);
  });
});

/** A short, growing, jittered pause before a retry. */
function backoff(attempt: number): Promise<void> {
  const ms = Math.min(25 * 2 ** attempt, 250) * (0.5 + Math.random() / 2);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
