/**
 * The widget script (widget/src/) bundled by esbuild into one minified file, in memory, once per
 * process: the service serves the bundle it built from the source it runs, so `/widget.js` and
 * the code can never drift apart, and no build step stands between a clone and `npm start`. The
 * output depends only on the source and esbuild's version, so every instance of a deployment
 * serves the same bytes under the same ETag and Subresource Integrity hash.
 *
 * Budget: 20 KB gzipped. A bundle over it is an error, so neither the service nor
 * `sitevoice widget build` hands it out.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { build } from "esbuild";

export const WIDGET_BUDGET_GZIP_BYTES = 20 * 1024;

const ENTRY = fileURLToPath(new URL("../../widget/src/main.ts", import.meta.url));

/** The browsers the widget supports: those with WebRTC, shadow DOM and fetch keepalive. */
const TARGETS = ["chrome100", "firefox100", "safari15.4", "edge100"];

export interface WidgetBundle {
  code: Buffer;
  gzip: Buffer;
  brotli: Buffer;
  /** A strong ETag from the content: `"<sha-256 prefix>"`. */
  etag: string;
  /** `sha384-<base64>`, for the script tag's `integrity` attribute. */
  integrity: string;
}

export class WidgetTooLarge extends Error {
  constructor(
    readonly gzipBytes: number,
    readonly budgetBytes: number,
  ) {
    super(
      `the widget is ${formatKb(gzipBytes)} gzipped, over its budget of ${formatKb(budgetBytes)}`,
    );
    this.name = "WidgetTooLarge";
  }
}

/** Bundles the widget; throws WidgetTooLarge above the budget. */
export async function buildWidget(
  options: { budgetBytes?: number; entry?: string } = {},
): Promise<WidgetBundle> {
  const result = await build({
    entryPoints: [options.entry ?? ENTRY],
    bundle: true,
    minify: true,
    format: "iife",
    target: TARGETS,
    write: false,
    legalComments: "none",
    charset: "utf8",
    logLevel: "silent",
    absWorkingDir: path.dirname(options.entry ?? ENTRY),
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error("esbuild produced no widget bundle");
  const code = Buffer.from(output.contents);
  const gzip = gzipSync(code, { level: 9 });
  const budget = options.budgetBytes ?? WIDGET_BUDGET_GZIP_BYTES;
  if (gzip.length > budget) throw new WidgetTooLarge(gzip.length, budget);
  return {
    code,
    gzip,
    brotli: brotliCompressSync(code, {
      params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
    }),
    etag: `"${createHash("sha256").update(code).digest("base64url").slice(0, 27)}"`,
    integrity: `sha384-${createHash("sha384").update(code).digest("base64")}`,
  };
}

let built: Promise<WidgetBundle> | undefined;

/** The bundle of this process, built on first use; a failed build is tried again next time. */
export function widgetBundle(): Promise<WidgetBundle> {
  built ??= buildWidget().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

export function formatKb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}
