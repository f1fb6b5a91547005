/**
 * What the jobs conformance suite works on: one fresh database of a target, migrated, with the
 * backend the service would pick for it (backends.ts), and as many further "instances" on it as a
 * case needs, each with a store (connections) of its own, as separate processes would have.
 * Everything opened is closed after the suite; the jobs are purged before every case.
 */
import { Writable } from "node:stream";
import type { JobParameters, JobRepository } from "agenda";
import pino, { type Logger } from "pino";
import { openJobsBackend, type JobsBackend } from "../../core/jobs/backends.ts";
import type { JobDefinition } from "../../core/jobs/job-definition.ts";
import { startJobs, type Jobs, type JobsOptions, type JobsParts } from "../../core/jobs/jobs.ts";
import { loadSettings } from "../../core/settings.ts";
import { migrate, openDatabase } from "../../core/store/database.ts";
import { Store } from "../../core/store/store.ts";
import {
  createTestDatabase,
  missing,
  type DatabaseTarget,
  type TestDatabase,
} from "../helpers/test-databases.ts";

/** An instance's parts with the log lines it wrote. */
export interface TestParts extends JobsParts {
  logs: Record<string, unknown>[];
}

export interface Instance {
  parts: TestParts;
  backend: JobsBackend;
  repository: JobRepository;
}

export interface JobsSuite {
  readonly target: DatabaseTarget;
  /** The database's URL (DATABASE_URL). */
  readonly url: string;
  /** The first instance's repository. */
  readonly repository: JobRepository;
  /** The first instance: store, backend (connected) and repository. */
  readonly first: Instance;
  /** A further instance on the same database (its own connections), closed after the suite. */
  instance(env?: Record<string, string>): Promise<Instance>;
  /** A runner on an instance of its own, stopped after the case; processEvery 50 ms. */
  runner(
    definitions: readonly JobDefinition<TestParts>[],
    env?: Record<string, string>,
    options?: JobsOptions,
  ): Promise<{ jobs: Jobs; parts: TestParts }>;
}

/** Sets up `JobsSuite` around the cases `body` declares (inside the caller's describe). */
export function withJobsSuite(target: DatabaseTarget, body: (suite: JobsSuite) => void): void {
  let database: TestDatabase | undefined;
  const closers: (() => Promise<void>)[] = [];
  const runners: Jobs[] = [];
  let first: Instance | undefined;

  async function instance(env: Record<string, string> = {}): Promise<Instance> {
    const settings = loadSettings({ DATABASE_URL: (database as TestDatabase).url, ...env });
    const logs: Record<string, unknown>[] = [];
    const logger: Logger = pino(
      { level: "debug" },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          logs.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      }),
    );
    const store = new Store(openDatabase(settings.database));
    closers.push(() => store.close());
    const backend = openJobsBackend(store.db, settings.database, logger);
    closers.push(() => backend.close());
    await backend.connect();
    return {
      parts: { settings, logger, store, logs },
      backend,
      repository: backend.backend.repository,
    };
  }

  const suite: JobsSuite = {
    target,
    get url() {
      return (database as TestDatabase).url;
    },
    get first() {
      return first as Instance;
    },
    get repository() {
      return (first as Instance).repository;
    },
    instance,
    async runner(definitions, env = {}, options = {}) {
      const { parts } = await instance(env);
      const jobs = await startJobs(parts, definitions, { processEveryMs: 50, ...options });
      runners.push(jobs);
      return { jobs, parts };
    },
  };

  before(async function () {
    database = await createTestDatabase(target);
    if (database === undefined) missing(this, target.label);
    const store = new Store(openDatabase(loadSettings({ DATABASE_URL: database.url }).database));
    await migrate(store.db);
    await store.close();
    first = await instance();
  });
  beforeEach(() => first?.repository.purgeAllJobs());
  afterEach(async () => {
    for (const jobs of runners.splice(0)) await jobs.stop();
  });
  after(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await database?.drop();
  });

  body(suite);
}

/** A job as agenda hands it to saveJob; due a minute ago unless told. */
export const jobOf = (fields: Partial<JobParameters> = {}): JobParameters => ({
  name: "test-job",
  priority: 0,
  nextRunAt: new Date(Date.now() - 60_000),
  type: "normal",
  data: {},
  ...fields,
});

/** Polls `check` every 20 ms until it holds; fails after `timeoutMs` naming `what`. */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
