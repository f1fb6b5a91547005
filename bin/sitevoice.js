#!/usr/bin/env node
// The service runs its TypeScript sources through tsx, so `npm start` needs no build step.
import { register } from "tsx/esm/api";

register();
await import("../core/cli.ts");
