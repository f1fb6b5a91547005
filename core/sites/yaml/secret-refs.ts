/**
 * Secret references in site files: `${env:NAME}` (with an optional fallback, `${env:NAME:-value}`)
 * and `${file:path}` (relative to the site file's folder). They keep credentials out of git and
 * are resolved where the file is synced, so the secret travels only to the store, sealed there.
 *
 * References are resolved only in secret fields (those sealed at rest, see site-secrets.ts): a
 * secret placed anywhere else would be stored and shown in plain text. `$${` writes a literal `${`.
 */
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { isSecretPath } from "../site-secrets.ts";

/** A problem found while checking or resolving references, at a dotted field. */
export interface ReferenceProblem {
  field: string;
  message: string;
}

export interface ResolveOptions {
  /** Where `${env:…}` looks; process.env by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The folder of the site file: `${file:…}` paths start there. */
  baseDir: string;
}

/** A `${file:…}` secret is a token or a key file, never a large one. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;

// `$${…}` (escaped) or `${kind:body}`; a body ends at the first `}`.
const REFERENCE = /\$(\$?)\{([a-z]+):([^}]*)\}/g;
const ENV_BODY = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

const SECRET_FIELDS_HINT =
  "auth.value, password, token, api_key, client_secret, connectionString and the like, under adapter.config";

/** Whether `text` holds at least one (unescaped) reference. */
export const hasReference = (text: string): boolean =>
  [...text.matchAll(REFERENCE)].some((match) => match[1] === "");

/**
 * Problems with references that do not need the environment: a reference outside a secret field,
 * an unknown kind, a malformed variable name, an empty file path. `sitevoice validate` reports them.
 */
export function checkReferences(data: unknown): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  eachString(data, [], (text, path) => {
    for (const match of text.matchAll(REFERENCE)) {
      if (match[1] === "$") continue;
      const field = path.join(".");
      if (!isSecretPath(path)) {
        problems.push({
          field,
          message: `${match[0]} is only resolved in secret fields (${SECRET_FIELDS_HINT}); elsewhere it would be stored in plain text`,
        });
        return;
      }
      const problem = syntaxProblem(match[2] as string, match[3] as string);
      if (problem !== undefined) problems.push({ field, message: problem });
    }
  });
  return problems;
}

/**
 * `data` with every reference in its secret fields replaced by the secret it names. Problems
 * (a variable not set, a file missing) are collected for every field at once; `data` is
 * undefined when there are any.
 */
export function resolveReferences<T>(
  data: T,
  options: ResolveOptions,
): { data?: T; problems: ReferenceProblem[] } {
  const problems = checkReferences(data);
  if (problems.length > 0) return { problems };
  const env = options.env ?? process.env;
  const resolved = mapStrings(data, [], (text, path) => {
    if (!isSecretPath(path)) return text;
    return text.replace(REFERENCE, (whole, escaped: string, kind: string, body: string) => {
      if (escaped === "$") return whole.slice(1);
      const value = kind === "env" ? fromEnv(body, env) : fromFile(body, options.baseDir);
      if (typeof value === "string") return value;
      problems.push({ field: path.join("."), message: value.problem });
      return whole;
    });
  });
  return problems.length > 0 ? { problems } : { data: resolved as T, problems };
}

function syntaxProblem(kind: string, body: string): string | undefined {
  if (kind === "env") {
    return ENV_BODY.test(body)
      ? undefined
      : `\${env:${body}} is not a variable name (letters, digits and _, not starting with a digit)`;
  }
  if (kind === "file") return body.trim() === "" ? "${file:} needs a path" : undefined;
  return `unknown reference \${${kind}:…}; use \${env:NAME} or \${file:path}`;
}

function fromEnv(
  body: string,
  env: Readonly<Record<string, string | undefined>>,
): string | { problem: string } {
  const [, name, fallback] = ENV_BODY.exec(body) as unknown as [string, string, string | undefined];
  const value = env[name];
  if (value !== undefined && value !== "") return value;
  if (fallback !== undefined) return fallback;
  return { problem: `environment variable ${name} is not set (referenced as \${env:${name}})` };
}

function fromFile(body: string, baseDir: string): string | { problem: string } {
  const path = isAbsolute(body) ? body : resolve(baseDir, body);
  try {
    if (statSync(path).size > MAX_SECRET_FILE_BYTES) {
      return { problem: `secret file ${body} is larger than ${MAX_SECRET_FILE_BYTES / 1024} KiB` };
    }
    // One trailing newline is how editors end a file, not part of the secret.
    return readFileSync(path, "utf8").replace(/\r?\n$/, "");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "not found" : (error as Error).message;
    return { problem: `secret file ${body}: ${reason}` };
  }
}

function eachString(value: unknown, path: string[], fn: (text: string, path: string[]) => void) {
  mapStrings(value, path, (text, at) => {
    fn(text, at);
    return text;
  });
}

function mapStrings(
  value: unknown,
  path: string[],
  fn: (text: string, path: string[]) => string,
): unknown {
  if (typeof value === "string") return fn(value, path);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, path, fn));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, mapStrings(item, [...path, key], fn)]),
    );
  }
  return value;
}
