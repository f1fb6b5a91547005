/**
 * The bodies of `POST /v1/webhooks` and `PATCH /v1/webhooks/:id`, checked whole before anything
 * is looked up: their schemas (schemas/webhook-create.schema.json, webhook-patch), an unknown
 * event type named with its value, and the URL rules a schema cannot hold because a setting
 * decides them (plain http only to the machine itself, and only where private networks are
 * allowed). Every problem is listed at once, as for other bodies. Where the URL leads (the
 * outbound policy) and which sites exist are the service's to check.
 */
import { schemaProblems, type SchemaName } from "../validation/schema-validator.ts";
import { problemsError, type Problem } from "../validation/problems-error.ts";
import type { WebhookEndpointCreateRequest } from "../types/generated/webhook-create.ts";
import type { WebhookEndpointPatchRequest } from "../types/generated/webhook-patch.ts";
import { SUBSCRIBABLE_EVENT_TYPES } from "./event-types.ts";

export interface InputRules {
  /** SITEVOICE_ALLOW_PRIVATE_NETWORKS: plain http:// to localhost is allowed only with it. */
  allowPrivateNetworks: boolean;
}

/** The hosts a plain http:// URL may name (as the URL parser writes them). */
const LOCAL_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A create body as the schema and the URL rules accept it; 400 (or 422) listing every problem. */
export const checkedCreate = (body: unknown, rules: InputRules) =>
  checked<WebhookEndpointCreateRequest>("webhook-create", body, rules);

/** A patch body (one field or more) as the schema and the URL rules accept it. */
export const checkedPatch = (body: unknown, rules: InputRules) =>
  checked<WebhookEndpointPatchRequest>("webhook-patch", body, rules);

function checked<T>(schema: SchemaName, body: unknown, rules: InputRules): T {
  const data = structuredClone(body);
  const problems = schemaProblems(schema, data).map((problem) => explained(problem, data));
  const url = isRecord(data) ? data.url : undefined;
  if (typeof url === "string" && !problems.some((problem) => problem.field === "url")) {
    const message = urlProblem(url, rules);
    if (message !== undefined) problems.push({ field: "url", message, kind: "shape" });
  }
  if (problems.length > 0) throw problemsError(problems);
  return data as T;
}

/**
 * A problem worded for the person who sent the body: an event type the list does not hold names
 * the value (in the message and `details.value`), and a problem of the body as a whole names
 * the field `body`, as a body that is not JSON does.
 */
function explained(problem: Problem, data: unknown): Problem {
  if (problem.field === "") return { ...problem, field: "body" };
  const index = /^events\.(\d+)$/.exec(problem.field)?.[1];
  const events = isRecord(data) ? data.events : undefined;
  const value = index === undefined || !Array.isArray(events) ? undefined : events[Number(index)];
  if (typeof value !== "string" || SUBSCRIBABLE_EVENT_TYPES.includes(value)) return problem;
  // A long value is named by its start: the answer need not echo a megabyte.
  const named = value.slice(0, 100);
  return {
    ...problem,
    message:
      `${problem.field} is ${JSON.stringify(named)}, which is not an event type a webhook can ` +
      `subscribe to (${SUBSCRIBABLE_EVENT_TYPES.join(", ")})`,
    details: { value: named },
  };
}

/** What is wrong with a URL the schema let through (an http(s):// string), or undefined. */
export function urlProblem(text: string, rules: InputRules): string | undefined {
  // The URL parser drops some of these silently; what is stored must be what is delivered to.
  if ([...text].some((char) => char.charCodeAt(0) <= 0x20 || char.charCodeAt(0) === 0x7f)) {
    return "url must not hold spaces or control characters";
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "url must be an absolute URL such as https://example.com/hooks/sitevoice";
  }
  if (url.username !== "" || url.password !== "") {
    return "url must not hold a user name or password (user:password@); deliveries are signed instead";
  }
  if (text.includes("#")) return "url must not have a #fragment";
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && rules.allowPrivateNetworks && LOCAL_HOSTS.has(url.hostname)) {
    return undefined;
  }
  return (
    "url must use https:// (plain http:// only to localhost, 127.0.0.1 or [::1], and only " +
    "when the service allows private networks)"
  );
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
