/**
 * What the voice-tools tests share: the example sites as the service stores them, a strict
 * compile of a tool's parameters, and finding a tool and its schema.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import type { VoiceTool } from "../host/plugin.ts";
import { exampleSite } from "../host/testing/example-sites.ts";

/** The example sites of sites/ the tests use. */
export function exampleSites() {
  return {
    dental: exampleSite("bright-smiles-dental.yaml"),
    trattoria: exampleSite("luigis-trattoria.yaml"),
    shop: exampleSite("nordic-home-shop.yaml"),
  };
}

/** Strict: an unknown keyword or a malformed schema fails to compile. */
const ajv = new Ajv2020({ strict: true, allErrors: true });

export const compile = (tool: VoiceTool): ValidateFunction => ajv.compile(tool.parameters);

export const toolNamed = (tools: VoiceTool[], name: string): VoiceTool => {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name} in ${tools.map((t) => t.name)}`);
  return tool;
};

export type Schema = Record<string, unknown> & {
  properties: Record<string, Record<string, unknown>>;
};

export const schemaOf = (tool: VoiceTool) => tool.parameters as Schema;
