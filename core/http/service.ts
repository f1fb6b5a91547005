/**
 * Starts and stops the whole service: the port bound first (bound-server.ts), then the parts
 * (compose.ts), the default workspace and the site files, the app and the jobs; and back down in
 * reverse order on shutdown.
 */
import type http from "node:http";
import { widgetBundle } from "../widget/widget-bundle.ts";
import type { Logger } from "pino";
import { createApp } from "./app.ts";
import { Lifecycle } from "../lifecycle.ts";
import { bootstrap, type Bootstrap } from "../bootstrap.ts";
import { composeParts, createLogger, type ServiceParts } from "../compose.ts";
import { bindServer } from "./bound-server.ts";
import { clientErrorHandler } from "./client-error-handler.ts";
import { CRAWL_DISPATCH_JOB, CRAWL_PLAN_JOB } from "../intelligence/crawl-jobs.ts";
import { jobDefinitions } from "../jobs/job-definitions.ts";
import { voiceUnavailable, voiceUnavailableNotice } from "../voice/voice-availability.ts";
import { startJobs, type Jobs } from "../jobs/jobs.ts";
import type { Settings } from "../settings.ts";
import { loadSiteFolder, readSiteFolder } from "../sites/sync/load-sites.ts";
import { assertPlanHoldsSiteFolder } from "../sites/sync/site-folder-room.ts";

export interface RunningService extends ServiceParts {
  server: http.Server;
  /** The bound port (useful with PORT=0 in tests). */
  port: number;
  boot: Bootstrap;
  /** The job runner: the processor (unless SITEVOICE_JOBS is off), and jobs queued on demand. */
  jobs: Jobs;
  /**
   * Stops accepting and, meanwhile, stops the jobs (waiting for the runs under way); finishes
   * open requests, stores every pending event, closes plugins, the site cache (and its channel),
   * Redis and the store.
   */
  close(): Promise<void>;
}

/** How long a graceful stop waits for open requests before it closes their connections. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * A graceful stop for `server`: no new connections, and every answer from now on says
 * `Connection: close`, so keep-alive clients (browsers, load balancers) move to another
 * instance instead of holding this one open; `server.close` alone would keep serving them.
 * Connections still open after the grace period are closed.
 */
function drainer(server: http.Server): () => Promise<void> {
  let draining = false;
  const open = new Set<http.ServerResponse>();
  server.on("request", (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (draining) res.shouldKeepAlive = false;
    open.add(res);
    res.on("close", () => open.delete(res));
  });
  return async () => {
    draining = true;
    for (const res of open) if (!res.headersSent) res.shouldKeepAlive = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    force.unref();
    await closed;
    clearTimeout(force);
  };
}

export async function startService(
  settings: Readonly<Settings>,
  logger: Logger = createLogger(settings),
): Promise<RunningService> {
  // The port first: a second start while one runs stops here, having written nothing.
  const bound = await bindServer(settings.port, settings.host);
  bound.server.on("clientError", clientErrorHandler(logger));
  let parts: ServiceParts;
  try {
    parts = await composeParts(settings, logger);
  } catch (error) {
    await bound.abort();
    throw error;
  }
  try {
    const siteFiles =
      settings.sitesDir === undefined
        ? undefined
        : await readSiteFolder(settings.sitesDir, { rules: parts.rules });
    // The embedded default (no DATABASE_URL) is the quick start's: rather than serve without one
    // of its site files for the plan, it stops, before the default workspace and its first key.
    if (siteFiles !== undefined && settings.database.privateDir !== undefined) {
      await assertPlanHoldsSiteFolder(siteFiles, parts, settings);
    }
    const boot = await bootstrap(parts.store, parts.keys, settings);
    if (siteFiles !== undefined) {
      await loadSiteFolder(siteFiles, {
        sites: parts.sites,
        workspaceId: boot.workspaceId,
        logger,
      });
    }
    const voiceReason = await voiceUnavailable(parts);
    if (voiceReason !== undefined) logger.warn(voiceUnavailableNotice(voiceReason));
    // The widget bundled now, not at its first visitor's request; a failure is the log's.
    widgetBundle().catch((err: unknown) => logger.error({ err }, "the widget did not build"));
    const lifecycle = new Lifecycle();
    const { server, port } = bound;
    const drain = drainer(server);
    bound.open(createApp(parts, lifecycle));
    let jobs: Jobs;
    try {
      jobs = await startJobs(parts, jobDefinitions);
    } catch (error) {
      await drain();
      throw error;
    }
    lifecycle.jobsStarted(jobs.processing);
    // The webhook outbox is sent wherever jobs run (SITEVOICE_JOBS).
    if (settings.jobs) parts.webhookDispatcher.start();
    parts.crawls.attach(jobs);
    if (settings.jobs) parts.userData.attach(jobs);
    if (settings.jobs) {
      // The nightly crawls planned and the queued crawls given jobs now, not an interval later.
      await jobs.now(CRAWL_PLAN_JOB);
      await jobs.now(CRAWL_DISPATCH_JOB);
    }
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        // Not ready from now on, still serving: the load balancer's checks see the 503 and take
        // this instance out of the pool before it stops accepting (SITEVOICE_DRAIN_MS).
        lifecycle.drain();
        if (settings.drainMs > 0) {
          logger.info({ drain_ms: settings.drainMs }, "draining: not ready, still serving");
          await new Promise((resolve) => setTimeout(resolve, settings.drainMs));
        }
        // No new request from the first moment: clients move to another instance while the
        // jobs stop, however long their runs under way take. Open streams would hold the drain
        // to its end: their clients reconnect elsewhere.
        parts.usageStream.endStreams();
        const drained = drain();
        // Crawls under way are given back first, so the jobs' stop does not wait for them.
        await parts.crawls.stop();
        await jobs.stop();
        lifecycle.jobsStopped();
        await parts.webhookDispatcher.stop();
        await drained;
        await parts.close();
      })());
    return { ...parts, server, port, boot, jobs, close };
  } catch (error) {
    await bound.abort();
    await parts.close();
    throw error;
  }
}
