#!/usr/bin/env node
// In a source checkout the service runs its TypeScript sources through tsx, so `npm start` needs no
// build step; the published package has no sources and runs its build (dist/, `npm run build`).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = new URL("../core/cli.ts", import.meta.url);
if (existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  // The repository's tsconfig maps `sitevoice` to the sources, whatever the working directory.
  register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
  await import(source.href);
} else {
  await import("../dist/core/cli.js");
}
