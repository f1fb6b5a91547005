/**
 * Checks of a request's parameters that answer with OpenAI's wording and codes
 * (`missing_required_parameter`, `invalid_type`, `unknown_parameter`, `invalid_value`, …), shared
 * by the stand-in's REST routes and its Realtime events, where the same problems come back as an
 * `error` event.
 */
import { openAiError, type OpenAiErrorBody } from "./openai-errors.ts";

/** Records the first problem; each method answers whether the value passed. */
export class BodyCheck {
  problem: OpenAiErrorBody | undefined;

  object(
    value: unknown,
    at: string,
    keys?: readonly string[],
  ): Record<string, unknown> | undefined {
    if (value === undefined) return this.#fail(missing(at));
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return this.#fail(invalidType(at, "an object", value));
    }
    const record = value as Record<string, unknown>;
    const unknown = keys && Object.keys(record).find((key) => !keys.includes(key));
    if (unknown !== undefined) {
      const param = at === "" ? unknown : `${at}.${unknown}`;
      return this.#fail(
        openAiError(`Unknown parameter: '${param}'.`, { param, code: "unknown_parameter" }),
      );
    }
    return record;
  }

  string(value: unknown, at: string): boolean {
    if (value === undefined) return this.#reject(missing(at));
    if (typeof value !== "string") return this.#reject(invalidType(at, "a string", value));
    if (value.trim() === "") {
      return this.#reject(
        openAiError(
          `Invalid '${at}': empty string. Expected a string with minimum length 1, but got an ` +
            "empty string instead.",
          { param: at, code: "empty_string" },
        ),
      );
    }
    return true;
  }

  oneOf(value: unknown, at: string, allowed: readonly string[]): boolean {
    if (value === undefined) return this.#reject(missing(at));
    if (typeof value !== "string") return this.#reject(invalidType(at, "a string", value));
    if (allowed.includes(value)) return true;
    const quoted = allowed.map((a) => `'${a}'`);
    const list =
      quoted.length > 1 ? `${quoted.slice(0, -1).join(", ")}, and ${quoted.at(-1)}` : quoted[0];
    return this.#reject(
      openAiError(`Invalid value: '${value}'. Supported values are: ${list}.`, {
        param: at,
        code: "invalid_value",
      }),
    );
  }

  integer(value: unknown, at: string, min: number, max: number): boolean {
    if (value === undefined) return this.#reject(missing(at));
    if (!Number.isInteger(value)) return this.#reject(invalidType(at, "an integer", value));
    const n = value as number;
    if (n >= min && n <= max) return true;
    const [what, code, bound] =
      n < min
        ? ["below minimum", "integer_below_min_value", `>= ${min}`]
        : ["above maximum", "integer_above_max_value", `<= ${max}`];
    return this.#reject(
      openAiError(
        `Invalid '${at}': integer ${what} value. Expected a value ${bound}, but got ${n} instead.`,
        { param: at, code },
      ),
    );
  }

  array(value: unknown, at: string): boolean {
    if (value === undefined) return this.#reject(missing(at));
    return Array.isArray(value) || this.#reject(invalidType(at, "an array", value));
  }

  /**
   * An `output_modalities` (session or response): `["audio"]` (audio and its transcript) or
   * `["text"]`; OpenAI takes no other value, and not both at once. Its wording for both is the
   * stand-in's own.
   */
  modalities(value: unknown, at: string): boolean {
    if (!Array.isArray(value)) return this.#reject(invalidType(at, "an array", value));
    if (value.length !== 1) {
      return this.#reject(
        openAiError(
          `Invalid '${at}': exactly one of 'text' and 'audio' is supported, not both at once.`,
          { param: at, code: "invalid_value" },
        ),
      );
    }
    return this.oneOf(value[0], at, ["text", "audio"]);
  }

  #fail(problem: OpenAiErrorBody): undefined {
    this.problem ??= problem;
    return undefined;
  }

  #reject(problem: OpenAiErrorBody): false {
    this.#fail(problem);
    return false;
  }
}

export function missing(param: string): OpenAiErrorBody {
  return openAiError(`Missing required parameter: '${param}'.`, {
    param,
    code: "missing_required_parameter",
  });
}

export function invalidType(param: string, expected: string, value: unknown): OpenAiErrorBody {
  return openAiError(
    `Invalid type for '${param}': expected ${expected}, but got ${kindOf(value)} instead.`,
    { param, code: "invalid_type" },
  );
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (Number.isInteger(value)) return "an integer";
  if (typeof value === "number") return "a decimal";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}
