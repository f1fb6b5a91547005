import { parse as parseContentType } from "content-type";
import express, { type RequestHandler } from "express";
import { errors } from "../errors.ts";
import { assertBodyDepth } from "../validation/nesting-depth.ts";

/** The API reference: 64 KiB on widget endpoints, 1 MiB elsewhere; over that 413. */
export const BODY_LIMIT_WIDGET = 64 * 1024;
export const BODY_LIMIT_API = 1024 * 1024;

/** The media types of a YAML body. */
const YAML_TYPES = ["application/yaml", "application/x-yaml", "text/yaml"];

/** The charsets a YAML body may declare: the site-file loader reads UTF-8 (ASCII is a subset). */
const YAML_CHARSETS = new Set(["utf-8", "utf8", "us-ascii"]);

/**
 * JSON bodies. `strict: false` lets a bare JSON value through so validation, not the parser,
 * names the problem. A body nested past MAX_NESTING_DEPTH is refused as soon as it is parsed,
 * before any handler walks it. (Signed widget bodies are read raw by their routes, with
 * parseRawJson: the HMAC is over the exact bytes.)
 */
export function jsonBody(limit: number): RequestHandler {
  const parse = express.json({ limit, strict: false });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      if (error !== undefined) {
        next(error);
        return;
      }
      try {
        assertBodyDepth(req.body);
      } catch (tooDeep) {
        next(tooDeep);
        return;
      }
      next();
    });
  };
}

/**
 * A body read raw (for its signature) as JSON: 400 for another Content-Type, for text that is not
 * JSON, and for JSON nested past MAX_NESTING_DEPTH, as jsonBody answers.
 */
export function parseRawJson(contentType: string | undefined, raw: Buffer): unknown {
  if (!/^application\/json\b/i.test(contentType ?? "")) {
    throw errors.invalidRequest("Content-Type must be application/json", {
      field: "content-type",
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString("utf8"));
  } catch {
    throw errors.invalidRequest("The body is not valid JSON", { field: "body" });
  }
  assertBodyDepth(body);
  return body;
}

/**
 * A charset the YAML reader does not read, as body-parser reports one for JSON (an http-error of
 * type `charset.unsupported`), so error-handler.ts answers both in the same words.
 */
function unsupportedCharset(charset: string): Error {
  return Object.assign(new Error(`unsupported charset "${charset.toUpperCase()}"`), {
    status: 415,
    expose: true,
    type: "charset.unsupported",
    charset,
  });
}

/**
 * YAML bodies (a site file pushed by a git pipeline) arrive as the raw bytes, for the site-file
 * loader: it refuses what is not UTF-8 at the byte, as `sitevoice validate` does, rather than
 * reading it with replacement characters. Another declared charset is refused before the body is
 * read, as body-parser does for JSON.
 */
export function yamlBody(limit: number): RequestHandler {
  const raw = express.raw({ limit, type: YAML_TYPES });
  return (req, res, next) => {
    if (req.is(YAML_TYPES)) {
      const charset = parseContentType(req.get("content-type") ?? "").parameters.charset;
      if (charset !== undefined && !YAML_CHARSETS.has(charset.toLowerCase())) {
        next(unsupportedCharset(charset.toLowerCase()));
        return;
      }
    }
    raw(req, res, next);
  };
}

/**
 * Refuses a YAML body where only JSON is read: 415, where it would otherwise reach validation as
 * no body at all. Only `PUT /v1/sites/:id` reads YAML (yamlBody).
 */
export const noYamlBody: RequestHandler = (req, _res, next) => {
  if (req.is(YAML_TYPES)) {
    next(
      errors.unsupportedMediaType(
        "A YAML body is read only by PUT /v1/sites/:id (a whole site); send JSON",
        { field: "content-type" },
      ),
    );
    return;
  }
  next();
};
