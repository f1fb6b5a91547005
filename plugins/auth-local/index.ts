/**
 * The built-in local accounts (`auth-local`): passwords hashed with Argon2id at OWASP's current
 * minimum (19 MiB of memory, 2 iterations, 1 lane; raise them in `SITEVOICE_PLUGIN_CONFIG`
 * under `auth-local` as the machine allows). A hash records its parameters, so raising them
 * later still verifies the older hashes. `@node-rs/argon2` runs the hashing off the event loop.
 */
import { hash, verify } from "@node-rs/argon2";
import { definePlugin, PLUGIN_API_VERSION } from "sitevoice";
import type { AuthProvider, PasswordHasher } from "sitevoice";

export interface LocalAccountsConfig {
  /** KiB of memory per hash. */
  memoryCost?: number;
  timeCost?: number;
  parallelism?: number;
}

/** OWASP Password Storage Cheat Sheet, Argon2id: m=19456 KiB, t=2, p=1. */
export const OWASP_ARGON2ID = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which this build cannot import). */
const ARGON2ID = 2;

export function argon2idHasher(config: LocalAccountsConfig = {}): PasswordHasher {
  const options = { ...OWASP_ARGON2ID, ...config, algorithm: ARGON2ID };
  return {
    hash: (password) => hash(password, options),
    async verify(stored, password) {
      if (!stored.startsWith("$argon2")) return false;
      try {
        return await verify(stored, password);
      } catch {
        return false; // a malformed hash verifies nothing
      }
    },
  };
}

export default definePlugin<"auth", LocalAccountsConfig>({
  kind: "auth",
  name: "auth-local",
  apiVersion: PLUGIN_API_VERSION,
  configSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    additionalProperties: false,
    properties: {
      memoryCost: { type: "integer", minimum: 19_456, maximum: 4_194_304 },
      timeCost: { type: "integer", minimum: 2, maximum: 20 },
      parallelism: { type: "integer", minimum: 1, maximum: 16 },
    },
  },
  create: (config): AuthProvider => ({ passwords: argon2idHasher(config) }),
});
