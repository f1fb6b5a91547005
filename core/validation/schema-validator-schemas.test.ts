/**
 * The JSON schemas of schemas/: every file registered, every schema and property documented with
 * title, description and examples, and every example accepted.
 */
import { readdirSync } from "node:fs";
import { expect } from "chai";
import type { SchemaObject } from "ajv";
import { createSchemaAjv, schemaFor, schemaNames, validateBody } from "./schema-validator.ts";

/** Every subschema carrying `examples`, with the JSON pointer to it. */
function subschemasWithExamples(schema: SchemaObject): [string, unknown[]][] {
  const found: [string, unknown[]][] = [];
  const walk = (node: unknown, pointer: string) => {
    if (typeof node !== "object" || node === null) return;
    const record = node as Record<string, unknown>;
    if (Array.isArray(record.examples)) found.push([pointer, record.examples]);
    for (const [key, value] of Object.entries(record)) {
      if (["examples", "default", "const", "enum"].includes(key)) continue;
      if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${pointer}/${key}/${i}`));
      else walk(value, `${pointer}/${key}`);
    }
  };
  walk(schema, "");
  return found;
}

describe("schemas", () => {
  it("registers every file of schemas/", () => {
    const files = readdirSync(new URL("../../schemas/", import.meta.url)).filter((file) =>
      file.endsWith(".schema.json"),
    );
    expect(files.map((file) => file.replace(".schema.json", "")).sort()).to.deep.equal(
      [...schemaNames].sort(),
    );
  });

  describe("documents every schema and every property with title, description and examples", () => {
    for (const name of schemaNames) {
      it(`documents ${name} and every property of it`, () => {
        const lacking: string[] = [];
        const walk = (node: unknown, path: string) => {
          if (typeof node !== "object" || node === null) return;
          const record = node as Record<string, unknown>;
          // A bare $ref reuses a documented definition.
          const isBareRef = typeof record.$ref === "string" && Object.keys(record).length === 1;
          if (!isBareRef) {
            for (const key of ["title", "description", "examples"]) {
              if (!(key in record)) lacking.push(`${path || "root"} lacks ${key}`);
            }
          }
          for (const [key, value] of Object.entries((record.properties ?? {}) as object)) {
            walk(value, `${path}.${key}`);
          }
          for (const [key, value] of Object.entries((record.$defs ?? {}) as object)) {
            walk(value, `$defs.${key}`);
          }
        };
        walk(schemaFor(name), "");
        // Every gap at once, not only the first.
        expect(lacking, name).to.deep.equal([]);
      });
    }
  });

  describe("accepts every example at the root through validateBody", () => {
    for (const name of schemaNames) {
      (schemaFor(name).examples as unknown[]).forEach((example, i) => {
        it(`accepts ${name} example ${i + 1}`, () => {
          expect(
            () => validateBody(name, structuredClone(example)),
            `${name} example`,
          ).not.to.throw();
        });
      });
    }
  });

  describe("accepts every example of every subschema", () => {
    // Fragments such as `properties/enabled_pages` hold a default at their own root, which strict
    // mode refuses when they are compiled alone.
    let ajv: ReturnType<typeof createSchemaAjv>;
    before(() => {
      ajv = createSchemaAjv({ strict: false });
    });

    for (const name of schemaNames) {
      const schema = schemaFor(name);
      for (const [pointer, examples] of subschemasWithExamples(schema)) {
        examples.forEach((example, i) => {
          it(`accepts ${name}#${pointer} example ${i + 1}`, () => {
            const validate = ajv.compile({ $ref: `${schema.$id}#${pointer}` });
            const ok = validate(structuredClone(example));
            expect(ok, `${name}#${pointer}: ${JSON.stringify(validate.errors)}`).to.equal(true);
          });
        });
      }
    }
  });
});
