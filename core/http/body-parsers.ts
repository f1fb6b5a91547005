import express from "express";

/** DECISIONS.md: 64 KiB on widget endpoints, 1 MiB elsewhere; over that 413. */
export const BODY_LIMIT_WIDGET = 64 * 1024;
export const BODY_LIMIT_API = 1024 * 1024;

/**
 * JSON bodies. `strict: false` lets a bare JSON value through so validation, not the parser,
 * names the problem. (Signed widget bodies are read raw by their routes: the HMAC is over the
 * exact bytes.)
 */
export const jsonBody = (limit: number) => express.json({ limit, strict: false });

/**
 * YAML bodies (a site file pushed by a git pipeline) arrive as the raw bytes, for the site-file
 * loader: it refuses what is not UTF-8 at the byte, as `sitevoice validate` does, rather than
 * reading it with replacement characters.
 */
export const yamlBody = (limit: number) =>
  express.raw({ limit, type: ["application/yaml", "application/x-yaml", "text/yaml"] });
