/**
 * `sitevoice widget info`: what a site owner pastes (the script tag with its Subresource
 * Integrity hash) and what the service serves at /widget.js (sizes, ETag). `sitevoice widget
 * build [--out FILE]`: writes the bundle for serving from elsewhere (a CDN); both fail, exit 1,
 * when the bundle is over its 20 KB gzipped budget.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Settings } from "../settings.ts";
import { buildWidget, formatKb, WIDGET_BUDGET_GZIP_BYTES } from "../widget/widget-bundle.ts";
import { WIDGET_PATH } from "../routes/widget-script-routes.ts";

export async function widgetInfo(settings: Readonly<Settings>) {
  const bundle = await buildWidget();
  const url = `${settings.publicBaseUrl.replace(/\/+$/, "")}${WIDGET_PATH}`;
  console.log(`url        ${url}`);
  console.log(`size       ${formatKb(bundle.code.length)} (${bundle.code.length} bytes)`);
  console.log(
    `gzipped    ${formatKb(bundle.gzip.length)} (${bundle.gzip.length} bytes; budget ` +
      `${formatKb(WIDGET_BUDGET_GZIP_BYTES)})`,
  );
  console.log(`brotli     ${formatKb(bundle.brotli.length)} (${bundle.brotli.length} bytes)`);
  console.log(`etag       ${bundle.etag}`);
  console.log(`integrity  ${bundle.integrity}`);
  console.log("");
  console.log(
    `<script src="${url}" data-site-id="YOUR_SITE_ID" integrity="${bundle.integrity}" ` +
      'crossorigin="anonymous" async></script>',
  );
}

export async function widgetBuild(
  _settings: Readonly<Settings>,
  input: { values: { out?: string } },
) {
  const bundle = await buildWidget();
  const out = input.values.out ?? path.join("dist", "widget.js");
  await mkdir(path.dirname(path.resolve(out)), { recursive: true });
  await writeFile(out, bundle.code);
  console.log(`${out}: ${formatKb(bundle.gzip.length)} gzipped, ${bundle.integrity}`);
}
