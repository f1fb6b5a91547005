/**
 * Brings a site file written for an older `schema_version` up to the current one, so files
 * written today keep loading after the schema changes. Each change of the schema appends one step.
 */

/** The `schema_version` this service reads and writes; equal to the last step's `to`. */
export const CURRENT_SCHEMA_VERSION = 1;

/** One change of the site schema, applied to a file's data written for version `from`. */
export interface MigrationStep {
  from: number;
  /** Always `from + 1`: steps run one version at a time. */
  to: number;
  /** Returns the data as version `to` expects it; may mutate and return `data`. */
  migrate(data: Record<string, unknown>): Record<string, unknown>;
}

/**
 * The steps from version 1 onwards, in order. Version 2 will be added as
 * `{ from: 1, to: 2, migrate: (data) => … }` together with `CURRENT_SCHEMA_VERSION = 2`.
 */
export const siteMigrations: readonly MigrationStep[] = [];

/** A file whose `schema_version` cannot be read or migrated; reported on `schema_version`. */
export class SchemaVersionError extends Error {
  readonly field = "schema_version";

  constructor(message: string) {
    super(message);
    this.name = "SchemaVersionError";
  }
}

/**
 * Migrates a site file's data to CURRENT_SCHEMA_VERSION. Call it after parsing and before schema
 * validation; throws SchemaVersionError for a version it cannot read.
 */
export function migrateSiteFile(data: Record<string, unknown>): Record<string, unknown> {
  return migrateWith(siteMigrations, data);
}

/**
 * Migrates `data` through `steps` to the last step's `to` (version 1 when there are none). A
 * missing `schema_version` means 1, the version files had before the field existed. The result
 * carries the target `schema_version`. Exported for tests, which pass their own steps.
 */
export function migrateWith(
  steps: readonly MigrationStep[],
  data: Record<string, unknown>,
): Record<string, unknown> {
  const target = steps.at(-1)?.to ?? 1;
  const given = data.schema_version ?? 1;
  if (typeof given !== "number" || !Number.isSafeInteger(given) || given < 1) {
    throw new SchemaVersionError(
      `schema_version must be a whole number from 1 to ${target} (got ${JSON.stringify(given)})`,
    );
  }
  if (given > target) {
    throw new SchemaVersionError(
      `schema_version ${given} is newer than this service understands (${target})`,
    );
  }
  let version = given;
  let migrated = data;
  for (const step of steps) {
    if (step.from < version) continue;
    if (step.from !== version || step.to !== version + 1) {
      // A programming error in the step list, not in the file.
      throw new Error(`site migrations: no step from schema_version ${version}`);
    }
    migrated = step.migrate(migrated);
    version = step.to;
  }
  // Only rewritten when a step ran or the field was missing, so an untouched file stays as read.
  return migrated.schema_version === target ? migrated : { ...migrated, schema_version: target };
}
