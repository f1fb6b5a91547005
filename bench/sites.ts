/**
 * `npm run bench -- sites`: the authenticated site read (`GET /v1/sites/:id`: API-key hash lookup,
 * rate limit, scope, store read, secret masking, envelope) through the service, side by side with
 * a bare `node:http` server doing the same store reads on the same SQLite file. Prints a Markdown
 * table for bench/RESULTS.md.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { hashKey } from "../core/keys/api-key-service.ts";
import { loadSettings } from "../core/settings.ts";
import { startService } from "../core/http/service.ts";
import { load, type LoadResult } from "./load.ts";

export async function benchSites({ seconds = 5, concurrency = 32 } = {}): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-bench-"));
  const settings = loadSettings({
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
    SITEVOICE_DATA_DIR: dataDir,
    SITEVOICE_MASTER_KEY: crypto.randomBytes(32).toString("base64"),
  });
  const service = await startService(settings);
  const key = (
    await service.keys.create(service.boot.workspaceId, {
      name: "bench",
      scopes: ["sites:read", "sites:write"],
      mode: "test",
    })
  ).value;
  const principal = await service.keys.authenticate(`Bearer ${key}`);
  const site = await service.sites.create(principal, {
    business_name: "Bench Dental",
    business_description: "A site to read",
    domain: "bench.example",
  });

  // The baseline: the same two store reads (key by hash, site by id), JSON out, no framework.
  const bare = http.createServer(async (req, res) => {
    const value = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
    const keyRow = await service.store.apiKeys.findByHash(hashKey(value));
    const row = keyRow === undefined ? undefined : await service.store.sites.get(site.site_id);
    res.writeHead(row === undefined ? 401 : 200, { "Content-Type": "application/json" });
    res.end(
      JSON.stringify({
        success: row !== undefined,
        data: row === undefined ? undefined : JSON.parse(row.config),
      }),
    );
  });
  await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
  const barePort = (bare.address() as { port: number }).port;

  // The per-key limit (1,000 a minute) would turn most of the service's requests into 429s, so
  // its side spreads over enough keys to stay under it: what is measured is the admitted path.
  const keys: string[] = [];
  for (let i = 0; i < 400; i++) {
    keys.push(
      (
        await service.keys.create(service.boot.workspaceId, {
          name: `bench-${i}`,
          scopes: ["sites:read"],
          mode: "test",
        })
      ).value,
    );
  }
  let next = 0;
  const rotating = () => ({ Authorization: `Bearer ${keys[next++ % keys.length]}` });
  const fixed = () => ({ Authorization: `Bearer ${key}` });

  const results: [string, LoadResult][] = [];
  // Alternate twice so neither side always runs on a warmer machine.
  for (let round = 0; round < 2; round++) {
    results.push([
      "bare node:http",
      await load(`http://127.0.0.1:${barePort}/`, fixed, { seconds, concurrency }),
    ]);
    results.push([
      "service GET /v1/sites/:id",
      await load(`http://127.0.0.1:${service.port}/v1/sites/${site.site_id}`, rotating, {
        seconds,
        concurrency,
      }),
    ]);
  }

  console.log(
    `\n${seconds} s per run, ${concurrency} concurrent connections, SQLite, Node ${process.version}, ${os.cpus().length} cores\n`,
  );
  console.log("| run | server | requests | non-200 | req/s | p50 ms | p99 ms |");
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  results.forEach(([name, r], i) =>
    console.log(
      `| ${Math.floor(i / 2) + 1} | ${name} | ${r.requests} | ${r.errors} | ${r.rps} | ${r.p50ms} | ${r.p99ms} |`,
    ),
  );

  bare.close();
  await service.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
