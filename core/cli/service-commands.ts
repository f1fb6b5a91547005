/**
 * The commands of the service and its parts: serve, adapters test and widget (their code:
 * serve.ts, adapters.ts, widget.ts).
 */
import { defineCommand } from "./command-spec.ts";

export const serveCommand = defineCommand({
  name: "serve",
  summary: "start the HTTP service (npm start)",
  description:
    "Starts the service on PORT: binds the port first (a port in use stops it at once, with\n" +
    "nothing written), then opens the store, creates the default workspace on the first start\n" +
    "(printing its first API key and the owner's setup link, once), applies the site files of\n" +
    "SITEVOICE_SITES_DIR and serves. SIGTERM or SIGINT finish open requests, close plugins and\n" +
    "the store, and exit 0.",
  options: {},
  examples: ["PORT=8080 sitevoice serve"],
  load: async () => (await import("./serve.ts")).serve,
});

export const adaptersTestCommand = defineCommand({
  name: "adapters test",
  args: "<site_id>",
  positionals: { min: 1, max: 1 },
  summary: "check a site's adapter connection and show each collection",
  description:
    "Connects to the site's data backend through its adapter and prints each collection's\n" +
    "fields, types, a sample value and its record count. Exit 1 on a failure.",
  options: {
    workspace: {
      type: "string",
      value: "ID",
      description: "the site's workspace (default: the default workspace)",
    },
  },
  examples: ["sitevoice adapters test luigis-trattoria"],
  load: async () => (await import("./adapters.ts")).adaptersTest,
});

export const widgetInfoCommand = defineCommand({
  name: "widget info",
  summary: "the widget's script tag with its integrity hash, sizes and ETag",
  description:
    "Prints the widget's URL, its sizes (raw, gzipped against its 20 KB budget, brotli), its\n" +
    "ETag and Subresource Integrity hash, and the script tag to paste. Exit 1 over budget.",
  options: {},
  examples: ["PUBLIC_BASE_URL=https://voice.example sitevoice widget info"],
  load: async () => (await import("./widget.ts")).widgetInfo,
});

export const widgetBuildCommand = defineCommand({
  name: "widget build",
  summary: "write the widget bundle, for serving it from a CDN",
  description:
    "Writes the widget bundle, the same bytes as /widget.js, and prints its gzipped size and\n" +
    "integrity hash. Exit 1 over the 20 KB gzipped budget.",
  options: {
    out: {
      type: "string",
      value: "FILE",
      description: "where to write it (default dist/widget.js)",
    },
  },
  examples: ["sitevoice widget build --out public/widget.js"],
  load: async () => (await import("./widget.ts")).widgetBuild,
});
