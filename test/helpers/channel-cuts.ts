/**
 * Cuts the connections channels between instances listen on (core/pubsub), as a Redis or
 * PostgreSQL restart or failover would; each checks it found some to cut.
 */
import { expect } from "chai";
import { Redis } from "ioredis";
import pg from "pg";
import type { Topic } from "../../core/pubsub/channel.ts";
import { TEST_REDIS_URL } from "./test-redis.ts";

/** Kills every subscribed Redis connection (every topic's, on every instance). */
export async function killRedisSubscribers(): Promise<void> {
  const admin = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 0 });
  try {
    const killed = await admin.client("KILL", "TYPE", "pubsub");
    expect(Number(killed)).to.be.greaterThan(0);
  } finally {
    admin.disconnect();
  }
}

/** Ends the LISTEN connections of `topic` on `databaseUrl`. */
export async function killPostgresListeners(databaseUrl: string, topic: Topic): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = $1 and datname = current_database()`,
      [topic.listenerName],
    );
    expect(rowCount).to.be.greaterThan(0);
  } finally {
    await admin.end();
  }
}
