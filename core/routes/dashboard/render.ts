/**
 * How the dashboard draws: Handlebars views from `dashboard/views/` (escaped by default) inside
 * one layout, partials from `dashboard/views/partials/` (also the fragments htmx swaps in), and
 * static assets served from this origin at URLs carrying their content hash: the dashboard's own
 * from `dashboard/static/`, htmx and uPlot from their npm packages. The Content-Security-Policy
 * allows nothing from elsewhere, no inline script, no eval and no framing.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Response } from "express";
import Handlebars from "handlebars";

const DASHBOARD_DIR = fileURLToPath(new URL("../../../dashboard/", import.meta.url));
const require = createRequire(import.meta.url);

export const PAGE_HEADERS = {
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  // Tokens travel in fragments, which are never sent; no page's address leaves either.
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  "Cache-Control": "no-store",
};

export const ASSET_TYPES: Record<string, string> = { ".css": "text/css", ".js": "text/javascript" };

/** Assets taken from npm packages, under the name the pages use. */
const PACKAGED_ASSETS: Record<string, string> = {
  "htmx.js": "htmx.org/dist/htmx.min.js",
  "uplot.js": "uplot/dist/uPlot.iife.min.js",
  "uplot.css": "uplot/dist/uPlot.min.css",
};

export type Assets = Map<string, { body: Buffer; version: string }>;

/** The static assets, read once: their bytes and content hash. */
export function loadAssets(): Assets {
  const assets: Assets = new Map();
  const add = (name: string, file: string) => {
    const body = fs.readFileSync(file);
    const version = crypto.createHash("sha256").update(body).digest("hex").slice(0, 12);
    assets.set(name, { body, version });
  };
  const dir = path.join(DASHBOARD_DIR, "static");
  for (const name of fs.readdirSync(dir)) add(name, path.join(dir, name));
  for (const [name, module] of Object.entries(PACKAGED_ASSETS)) add(name, require.resolve(module));
  return assets;
}

export interface Renderer {
  /** A whole page: `view` inside the layout, with the page headers. */
  page(res: Response, view: string, title: string, context?: Record<string, unknown>): void;
  /** A partial alone, as htmx swaps it into the page, with the page headers. */
  fragment(
    res: Response,
    partial: string,
    context?: Record<string, unknown>,
    status?: number,
  ): void;
}

export function createRenderer(assets: Assets): Renderer {
  const hbs = Handlebars.create();
  registerHelpers(hbs, assets);
  const viewsDir = path.join(DASHBOARD_DIR, "views");
  const compile = (file: string) =>
    hbs.compile(fs.readFileSync(file, "utf8"), { strict: false, preventIndent: true });
  const views = new Map<string, HandlebarsTemplateDelegate>();
  for (const name of fs.readdirSync(viewsDir)) {
    if (name.endsWith(".hbs")) views.set(name.slice(0, -4), compile(path.join(viewsDir, name)));
  }
  const partialsDir = path.join(viewsDir, "partials");
  const partials = new Map<string, HandlebarsTemplateDelegate>();
  for (const name of fs.readdirSync(partialsDir)) {
    const template = compile(path.join(partialsDir, name));
    partials.set(name.slice(0, -4), template);
    hbs.registerPartial(name.slice(0, -4), template);
  }
  const layout = views.get("layout")!;
  const named = (map: Map<string, HandlebarsTemplateDelegate>, name: string) => {
    const template = map.get(name);
    if (template === undefined) throw new Error(`no dashboard template ${name}`);
    return template;
  };
  return {
    page(res, view, title, context = {}) {
      const all = { ...res.locals, ...context, title };
      res
        .set(PAGE_HEADERS)
        .type("html")
        .send(layout({ ...all, body: named(views, view)(all) }));
    },
    fragment(res, partial, context = {}, status = 200) {
      res
        .status(status)
        .set(PAGE_HEADERS)
        .type("html")
        .send(named(partials, partial)({ ...res.locals, ...context }));
    },
  };
}

function registerHelpers(hbs: typeof Handlebars, assets: Assets): void {
  hbs.registerHelper("asset", (name: string) => {
    const asset = assets.get(name);
    if (asset === undefined) throw new Error(`no dashboard asset ${name}`);
    // Ours, of known characters: not escaped, so `=` stays `=` in the page.
    return new hbs.SafeString(`/dashboard/static/${name}?v=${asset.version}`);
  });
  hbs.registerHelper("eq", (a: unknown, b: unknown) => a === b);
  /** A query string of the named values (escaped by the template as any text). */
  hbs.registerHelper("query", (options: { hash: Record<string, unknown> }) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(options.hash)) {
      if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
    }
    return params.toString();
  });
  /** A UTC time to the minute, as people read it: `2026-11-26 21:30 UTC`. */
  hbs.registerHelper("time", (value: unknown) =>
    typeof value === "string" && value.length >= 16
      ? `${value.slice(0, 10)} ${value.slice(11, 16)} UTC`
      : "",
  );
  hbs.registerHelper("json", (value: unknown) => JSON.stringify(value));
}
