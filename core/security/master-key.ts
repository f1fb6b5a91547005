/**
 * The master key for secrets at rest. SITEVOICE_MASTER_KEY wins; without it the embedded default
 * generates one into the data folder (mode 0600) and warns, so a newcomer needs no setup.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import type { Settings } from "../settings.ts";
import { ensurePrivateDir } from "../util/private-files.ts";

export function resolveMasterKey(settings: Readonly<Settings>, logger: Logger): Buffer {
  if (settings.masterKey !== undefined) return settings.masterKey;
  const file = path.join(settings.dataDir, "master.key");
  if (fs.existsSync(file)) {
    const key = Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64");
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return key;
  }
  ensurePrivateDir(settings.dataDir);
  const key = crypto.randomBytes(32);
  fs.writeFileSync(file, key.toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  logger.warn(
    { file },
    "SITEVOICE_MASTER_KEY is not set: generated a master key in the data folder. Set it in production and keep it safe.",
  );
  return key;
}
