/**
 * The one rule set a whole site is judged by, so `sitevoice validate` and the API refuse the same
 * sites with the same words: its JSON Schema (shape, reserved ids, time zones, ports), then the
 * rules that need the installation (which adapter types exist and their plugins' config and
 * collection schemas, which industries and voices exist) or look across fields. The API answers
 * the problems in `details.errors`; validate prints each at its line and column.
 */
import type { PluginHost } from "../host/plugin-host.ts";
import { problemsError, type Problem } from "../validation/problems-error.ts";
import { schemaProblems, validateBody, type SchemaName } from "../validation/schema-validator.ts";
import { knownAdapterTypes } from "./adapter-types.ts";
import { adapterDestination } from "./adapter-destination.ts";
import { checkReferences } from "./yaml/secret-refs.ts";

/** What the rules need to know of the installation. */
export interface SiteRulesContext {
  /** Adapter plugins: which `adapter.type`s exist, and their config and collection schemas. */
  plugins: PluginHost;
  /** Industries with a prompt template (built-in and from prompt-template plugins). */
  industries: ReadonlySet<string>;
  /**
   * The configured voice provider and the voices it declares; without a declared list any voice
   * name passes (the provider then judges it when a session starts).
   */
  voices?: { provider: string; names: readonly string[] };
}

/** The schemas a whole site is checked against: as a request or file gives it, or as stored. */
export type SiteSchema = Extract<SchemaName, "site" | "site-create">;

export class SiteRules {
  constructor(private readonly context: SiteRulesContext) {}

  /** The industries a site may name, sorted: the dashboard offers them. */
  industries(): string[] {
    return [...this.context.industries].sort();
  }

  /**
   * Every problem of `data` against `schema` and the rules, shape problems first. Defaults are
   * filled into a copy (a left-out voice is the default voice, which passes); `data` is untouched.
   */
  problems(schema: SiteSchema, data: unknown): Problem[] {
    const copy = structuredClone(data);
    const problems = schemaProblems(schema, copy);
    if (typeof copy !== "object" || copy === null || Array.isArray(copy)) return problems;
    // A field whose shape is wrong is reported once, for its shape.
    const reported = new Set(problems.map((problem) => problem.field));
    const site = copy as Record<string, unknown>;
    const rules = [
      ...this.adapterProblems(site.adapter, reported),
      ...checkReferences(site).map((p) => ({ ...p, kind: "rule" as const })),
      ...this.industryProblems(site.industry),
      ...this.voiceProblems(site.voice),
    ];
    return [...problems, ...rules.filter((problem) => !reported.has(problem.field))];
  }

  /**
   * `data` with its defaults filled in (the site schema's, and its adapter plugin's for the
   * adapter config), when it keeps every rule; else every problem as one ServiceError (400, or
   * 422 when all are business rules). The caller must own `data`.
   */
  accept<T>(schema: SiteSchema, data: unknown): T {
    const problems = this.problems(schema, data);
    if (problems.length > 0) throw problemsError(problems);
    return this.complete<T>(schema, data);
  }

  /**
   * `data`, which `problems` found none in, with its defaults filled in (see accept). The caller
   * must own `data`.
   */
  complete<T>(schema: SiteSchema, data: unknown): T {
    const site = validateBody<T>(schema, data);
    const adapter = asRecord((site as { adapter?: unknown }).adapter);
    if (typeof adapter?.type === "string" && adapter.config !== undefined) {
      adapter.config = this.context.plugins.configWithDefaults(
        "adapter",
        adapter.type,
        adapter.config,
      );
    }
    return site;
  }

  /**
   * An adapter type must be served by a loaded adapter plugin, whose own schemas then check the
   * config (its configSchema) and each collection (its collectionSchema, if it has one).
   */
  private adapterProblems(adapter: unknown, reported: ReadonlySet<string>): Problem[] {
    const record = asRecord(adapter);
    if (record === undefined || typeof record.type !== "string" || reported.has("adapter.type")) {
      return [];
    }
    const { plugins } = this.context;
    const plugin = plugins.find("adapter", record.type);
    if (plugin === undefined) {
      const known = knownAdapterTypes(plugins);
      return [
        {
          field: "adapter.type",
          message: `no adapter plugin serves type "${record.type}"; known: ${known.join(", ")}`,
          kind: "rule",
          details: { reason: "unknown_adapter_type", known_types: known },
        },
      ];
    }
    const details = { plugin: plugin.name };
    const config = plugins.configProblems("adapter", record.type, record.config ?? {}, [
      "adapter",
      "config",
    ]);
    const collections = Object.entries(asRecord(record.collections) ?? {}).flatMap(
      ([name, collection]) =>
        plugins.collectionProblems(record.type as string, collection, [
          "adapter",
          "collections",
          name,
        ]),
    );
    return [...config, ...collections].map((problem) => ({ ...problem, details }));
  }

  /**
   * Whether two adapters send their secrets to the same place: the same type, and the same
   * destination as the adapter's plugin tells it (or, when it does not, the same config but for
   * its secrets). A masked secret is kept only then (see keepMaskedSecrets).
   */
  sameDestination(next: unknown, current: { type: string; config?: unknown } | undefined): boolean {
    if (current === undefined || typeof next !== "object" || next === null) return false;
    const { type, config } = next as { type?: unknown; config?: unknown };
    if (type !== current.type) return false;
    const { plugins } = this.context;
    return (
      adapterDestination(plugins, current.type, config) ===
      adapterDestination(plugins, current.type, current.config)
    );
  }

  /** The industry must have a template: one without would silently get no guidance. */
  private industryProblems(industry: unknown): Problem[] {
    const { industries } = this.context;
    if (typeof industry !== "string" || industries.has(industry)) return [];
    const known = [...industries].sort().join(", ");
    return [
      {
        field: "industry",
        message: `no template for industry "${industry}"; known: ${known}`,
        kind: "rule",
      },
    ];
  }

  /** The voice must be one the configured provider has, or the first conversation fails. */
  private voiceProblems(voice: unknown): Problem[] {
    const voices = this.context.voices;
    if (voices === undefined || typeof voice !== "string" || voices.names.includes(voice)) {
      return [];
    }
    return [
      {
        field: "voice",
        message: `"${voice}" is not a voice of the ${voices.provider} voice provider; use one of ${voices.names.join(", ")}`,
        kind: "rule",
        details: { voices: [...voices.names] },
      },
    ];
  }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The rules of this installation: its adapter plugins, its industries, and the voices of the
 * configured voice provider (`voiceProvider`, a plugin type or name), when that plugin lists them.
 */
export function siteRulesOf(
  plugins: PluginHost,
  options: { industries: ReadonlySet<string>; voiceProvider: string },
): SiteRules {
  const provider = plugins.find("voice-provider", options.voiceProvider);
  const names = provider?.definition.voices;
  return new SiteRules({
    plugins,
    industries: options.industries,
    voices:
      names === undefined ? undefined : { provider: options.voiceProvider, names: [...names] },
  });
}
