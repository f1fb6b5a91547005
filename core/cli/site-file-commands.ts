/**
 * The commands on site files: validate, diff, sync and pull (their code: validate.ts and
 * site-files.ts).
 */
import { defineCommand } from "./command-spec.ts";

const target = {
  remote: {
    type: "string",
    value: "URL",
    description: "a running service instead of the local store (key in SITEVOICE_API_KEY)",
  },
  workspace: {
    type: "string",
    value: "ID",
    description: "the workspace of the local store (default: the default workspace)",
  },
} as const;

export const validateCommand = defineCommand({
  name: "validate",
  args: "[paths…]",
  positionals: { max: Infinity },
  summary: "check site YAML files; exit 1 on any problem",
  description:
    "Checks the site files of the paths (files or folders; default sites/) by the rules the\n" +
    "API applies, with this installation's plugins and templates, and prints every problem as\n" +
    "`file:line:column  field  message`. Reads no store. Exit 1 when any file has a problem.",
  options: {},
  examples: ["sitevoice validate sites/luigis-trattoria.yaml"],
  load: async () => (await import("./validate.ts")).validate,
});

export const diffCommand = defineCommand({
  name: "diff",
  args: "[paths…]",
  positionals: { max: Infinity },
  summary: "show, per site, what sync would change, field by field",
  description:
    "Plans the site files of the paths (files or folders; default sites/) against the sites,\n" +
    "field by field with secrets masked, and writes nothing. Secret references ${env:…} and\n" +
    "${file:…} are resolved here.",
  options: {
    prune: { type: "boolean", description: "also list the sites no file describes, as deletes" },
    ...target,
  },
  examples: [
    "sitevoice diff",
    "SITEVOICE_API_KEY=vk_live_… sitevoice diff --remote https://voice.example",
  ],
  load: async () => (await import("./site-files.ts")).diff,
});

export const syncCommand = defineCommand({
  name: "sync",
  args: "[paths…]",
  positionals: { max: Infinity },
  summary: "make the sites match the files (create, update; --prune deletes)",
  description:
    "Makes the sites match the site files of the paths (files or folders; default sites/):\n" +
    "creates and updates them, each as one version from yaml. Every file is checked and\n" +
    "planned first; when anything is refused, nothing is written and the exit code is 1.\n" +
    "Secret references are resolved here.",
  options: {
    "dry-run": { type: "boolean", description: "plan only, write nothing" },
    prune: { type: "boolean", description: "also delete the sites no file describes" },
    ...target,
  },
  examples: ["sitevoice sync --dry-run", "sitevoice sync sites/luigis-trattoria.yaml"],
  load: async () => (await import("./site-files.ts")).sync,
});

export const pullCommand = defineCommand({
  name: "pull",
  args: "[folder]",
  positionals: { max: 1 },
  summary: "write the sites into YAML files (default sites/), keeping comments",
  description:
    "Writes the sites into the YAML files of the folder (default sites/): only the changed\n" +
    "lines of an existing file, a new <site_id>.yaml for a site without one. Secrets are never\n" +
    "written in clear, and a ${env:…} or ${file:…} reference is kept.",
  options: target,
  examples: [
    "sitevoice pull",
    "SITEVOICE_API_KEY=vk_live_… sitevoice pull --remote https://voice.example",
  ],
  load: async () => (await import("./site-files.ts")).pull,
});
