/**
 * The service side of every benchmark: the whole service as `sitevoice serve` runs it, started
 * through `startService`, on embedded SQLite in `dataDir` (or the database `env.DATABASE_URL`
 * names, and whatever else `env` sets), logging nothing (or, with `LOG_LEVEL` in `env`, to
 * `logs`), allowed to reach the benchmark's backend on 127.0.0.1, and without the repository's
 * example site files.
 */
import crypto from "node:crypto";
import type { DestinationStream } from "pino";
import { createLogger } from "../core/compose.ts";
import { startService, type RunningService } from "../core/http/service.ts";
import { loadSettings } from "../core/settings.ts";

export function startBenchService(
  dataDir: string,
  env: Record<string, string> = {},
  logs?: DestinationStream,
): Promise<RunningService> {
  const settings = loadSettings({
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
    SITEVOICE_DATA_DIR: dataDir,
    SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
    SITEVOICE_SITES_DIR: "",
    SITEVOICE_ALLOW_PRIVATE_NETWORKS: "true",
    ...env,
  });
  return startService(settings, logs === undefined ? undefined : createLogger(settings, logs));
}
