import { expect } from "chai";
import {
  CURRENT_SCHEMA_VERSION,
  SchemaVersionError,
  migrateSiteFile,
  migrateWith,
  siteMigrations,
} from "./schema-migrations.ts";
import type { MigrationStep } from "./schema-migrations.ts";

function errorOf(action: () => unknown): SchemaVersionError {
  try {
    action();
  } catch (error) {
    expect(error).to.be.instanceOf(SchemaVersionError);
    return error as SchemaVersionError;
  }
  return expect.fail("expected a SchemaVersionError");
}

describe("site file schema versions", () => {
  it("has steps that end at the current version", () => {
    expect(siteMigrations.at(-1)?.to ?? 1).to.equal(CURRENT_SCHEMA_VERSION);
  });

  it("reads a missing schema_version as 1", () => {
    expect(migrateSiteFile({ business_name: "A" })).to.deep.equal({
      business_name: "A",
      schema_version: 1,
    });
  });

  it("keeps a current file as it is", () => {
    const data = { schema_version: 1, business_name: "A" };
    expect(migrateSiteFile(data)).to.equal(data);
  });

  it("refuses a newer or a malformed version", () => {
    expect(errorOf(() => migrateSiteFile({ schema_version: 2 })).message).to.equal(
      "schema_version 2 is newer than this service understands (1)",
    );
    expect(errorOf(() => migrateSiteFile({ schema_version: "one" })).message).to.equal(
      'schema_version must be a whole number from 1 to 1 (got "one")',
    );
    expect(errorOf(() => migrateSiteFile({ schema_version: 0 })).field).to.equal("schema_version");
  });

  describe("with steps", () => {
    // A made-up version 2 renaming `voice` to `voice_name`, and a version 3 adding a field.
    const ran: string[] = [];
    const steps: MigrationStep[] = [
      {
        from: 1,
        to: 2,
        migrate: ({ voice, ...rest }) => {
          ran.push("1→2");
          return { ...rest, voice_name: voice, schema_version: 2 };
        },
      },
      {
        from: 2,
        to: 3,
        migrate: (data) => {
          ran.push("2→3");
          return { ...data, greeting: "Hello", schema_version: 3 };
        },
      },
    ];

    beforeEach(() => ran.splice(0));

    it("runs every step from the file's version, in order", () => {
      expect(migrateWith(steps, { voice: "nova" })).to.deep.equal({
        voice_name: "nova",
        greeting: "Hello",
        schema_version: 3,
      });
      expect(ran).to.deep.equal(["1→2", "2→3"]);
    });

    it("skips the steps older than the file", () => {
      expect(migrateWith(steps, { schema_version: 2, voice_name: "echo" })).to.deep.equal({
        schema_version: 3,
        voice_name: "echo",
        greeting: "Hello",
      });
      expect(ran).to.deep.equal(["2→3"]);
    });

    it("refuses a version newer than the last step", () => {
      expect(errorOf(() => migrateWith(steps, { schema_version: 4 })).message).to.equal(
        "schema_version 4 is newer than this service understands (3)",
      );
    });

    it("fails loudly on a gap in the step list", () => {
      expect(() => migrateWith([steps[1]!], { schema_version: 1 })).to.throw(/no step from/);
    });
  });
});
