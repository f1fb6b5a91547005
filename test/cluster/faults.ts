/**
 * The faults, done to the real processes: `kill -9` of an instance (and its start again on the
 * same port), the machine's Redis shut down and started again with the very command CI starts it
 * with, the machine's PostgreSQL cluster restarted, the webhook receiver stopped and started again
 * on its port. `ensureRedis` and `ensurePostgres` (for `after` hooks) leave both running whatever
 * happened. And the rate-limit probe: more refreshes than a site may take, fired through HAProxy.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import { promisify } from "node:util";
import { pause } from "./client.ts";
import { readyStatus, type Instance } from "./cluster.ts";
import type { World } from "./fixtures.ts";

const exec = promisify(execFile);

/** How CI starts the machine's Redis (.ci/run): exactly this, again, after the fault. */
export const REDIS_COMMAND = [
  "redis-server",
  [
    "--daemonize",
    "yes",
    "--bind",
    "127.0.0.1",
    "-::1",
    "--port",
    "6379",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    "/var/lib/redis",
    "--logfile",
    "/var/log/redis/ci.log",
  ],
] as const;

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.setTimeout(1_000);
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => (socket.destroy(), resolve(false)));
  });

async function until(what: string, done: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await pause(100);
  }
}

export async function killInstance(world: World, instance: Instance): Promise<void> {
  await world.cluster.kill(instance);
}

/** Starts a killed instance on its port, and waits until HAProxy sends to it again. */
export async function restartInstance(world: World, instance: Instance): Promise<void> {
  await world.cluster.startInstance(instance);
  await world.cluster.waitServerUp(instance);
}

const redisPing = async () => {
  try {
    return (
      (await exec("redis-cli", ["-p", "6379", "ping"], { timeout: 2_000 })).stdout.trim() === "PONG"
    );
  } catch {
    return false;
  }
};

/**
 * Shuts the machine's Redis down (nothing saved: it starts empty), does `whileDown` and waits
 * `downMs`, then starts it again.
 */
export async function restartRedis(downMs: number, whileDown?: () => Promise<void>): Promise<void> {
  const { stdout } = await exec("pgrep", ["-a", "redis-server"]);
  if (!stdout.includes(":6379")) throw new Error(`no redis-server on 6379 among: ${stdout}`);
  await exec("redis-cli", ["-p", "6379", "shutdown", "nosave"]).catch(() => undefined);
  await until("Redis to stop", async () => !(await listening(6379)), 10_000);
  try {
    await Promise.all([pause(downMs), whileDown?.()]);
  } finally {
    await ensureRedis();
  }
}

/** Starts the machine's Redis as CI does unless it answers already. */
export async function ensureRedis(): Promise<void> {
  if (await redisPing()) return;
  await exec(REDIS_COMMAND[0], [...REDIS_COMMAND[1]]);
  await until("Redis to answer", redisPing, 15_000);
}

const pgVersion = () => fs.readdirSync("/etc/postgresql").sort()[0]!;

export async function restartPostgres(): Promise<void> {
  await exec("pg_ctlcluster", ["--skip-systemctl-redirect", pgVersion(), "main", "restart"], {
    timeout: 60_000,
  });
  await until("PostgreSQL to accept connections", () => listening(5432), 30_000);
}

/** Starts the machine's PostgreSQL cluster unless it is up already. */
export async function ensurePostgres(): Promise<void> {
  if (await listening(5432)) return;
  await exec("pg_ctlcluster", ["--skip-systemctl-redirect", pgVersion(), "main", "start"], {
    timeout: 60_000,
  });
  await until("PostgreSQL to accept connections", () => listening(5432), 30_000);
}

/** Waits until every live instance answers ready again (its database and Redis back). */
export async function allReady(world: World, ms = 30_000): Promise<void> {
  await until(
    "every live instance ready",
    async () =>
      (await Promise.all(world.cluster.alive().map((i) => readyStatus(i.url)))).every(
        (s) => s === 200,
      ),
    ms,
  );
}

/**
 * A site of its own, then `fire` refreshes of it at once through HAProxy (which spreads them over
 * the instances): how many were admitted (202) and refused (429), and what else came back.
 */
export async function refreshBurst(world: World, phase: string, fire = 30) {
  const siteId = `limit-${phase.replace(/[^a-z0-9]/g, "")}`.slice(0, 60);
  const created = await world.client.json(
    "limit site",
    `${world.api}/sites`,
    "POST",
    {
      site_id: siteId,
      business_name: `Limit ${phase}`,
      business_description: "Refreshed past its limit",
      domain: `${siteId}.invalid`,
      industry: "general",
    },
    { headers: world.auth },
  );
  if (created.status !== 201) throw new Error(`limit site: ${JSON.stringify(created.body)}`);
  const answers = await Promise.all(
    Array.from({ length: fire }, () =>
      world.client.call("limit refresh", `${world.api}/sites/${siteId}/refresh`, {
        method: "POST",
        headers: world.auth,
        ok: (s) => s === 202 || s === 429,
      }),
    ),
  );
  const count = (status: number) => answers.filter((a) => a.status === status).length;
  return {
    admitted: count(202),
    refused: count(429),
    other: answers.filter((a) => a.status !== 202 && a.status !== 429).map((a) => a.status),
  };
}
