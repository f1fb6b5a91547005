/**
 * Starts the real service on a free port against a given database, with a fresh data folder and
 * master key, for supertest and plain HTTP tests. With open sign-up, where an account counts once
 * a mailed link confirms its address, the service mails a real SMTP server of its own (`mailbox`,
 * which `signUp` of session-cookie.ts reads) unless the test names its own SMTP_URL.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Scope } from "../../core/auth/principal.ts";
import { scopes } from "../../core/auth/principal.ts";
import type { DestinationStream } from "pino";
import { createLogger } from "../../core/compose.ts";
import { loadSettings } from "../../core/settings.ts";
import { startService, type RunningService } from "../../core/http/service.ts";
import { newId } from "../../core/store/ids.ts";
import type { Plan } from "../../core/settings.ts";
import { smtpServer } from "./smtp-server.ts";

export type Mailbox = Awaited<ReturnType<typeof smtpServer>>;

export interface TestService extends RunningService {
  url: string;
  dataDir: string;
  /** The SMTP server the service mails, when the test gave no SMTP_URL and sign-up is open. */
  mailbox?: Mailbox;
  /** A new workspace with the given plan (default business). */
  workspace(plan?: Plan): Promise<string>;
  /** A new key value in `workspaceId`. */
  key(
    workspaceId: string,
    options?: { scopes?: Scope[]; siteIds?: string[]; mode?: "live" | "test" },
  ): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestService(
  databaseUrl: string,
  env: Record<string, string> = {},
  options: {
    /** Where the service's log lines go (with LOG_LEVEL in `env`); none are kept without. */
    logs?: DestinationStream;
  } = {},
): Promise<TestService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-data-"));
  const mailbox =
    env.SITEVOICE_SIGNUP === "open" && env.SMTP_URL === undefined ? await smtpServer() : undefined;
  const service = await Promise.resolve()
    .then(() => {
      const settings = loadSettings({
        PORT: "0",
        HOST: "127.0.0.1",
        LOG_LEVEL: "silent",
        NODE_ENV: "test",
        SITEVOICE_DATA_DIR: dataDir,
        SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
        DATABASE_URL: databaseUrl,
        SITEVOICE_SITES_DIR: "", // suites load site files themselves when they want some
        SITEVOICE_DRAIN_MS: "0", // no load balancer to tell: a stop needs no drain
        ...(mailbox === undefined ? {} : { SMTP_URL: `smtp://127.0.0.1:${mailbox.port}` }),
        ...env,
      });
      return startService(
        settings,
        options.logs === undefined ? undefined : createLogger(settings, options.logs),
      );
    })
    .catch(async (error: unknown) => {
      await mailbox?.close();
      throw error;
    });
  return {
    ...service,
    url: `http://127.0.0.1:${service.port}`,
    dataDir,
    mailbox,
    async workspace(plan: Plan = "business") {
      const id = newId("ws");
      await service.store.workspaces.insert({
        id,
        name: `Test ${id}`,
        plan,
        created_at: Date.now(),
      });
      return id;
    },
    async key(workspaceId, options = {}) {
      const created = await service.keys.create(workspaceId, {
        name: "test",
        scopes: options.scopes ?? [...scopes],
        mode: options.mode ?? "test",
        site_ids: options.siteIds,
      });
      return created.value;
    },
    async stop() {
      await service.close();
      await mailbox?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
