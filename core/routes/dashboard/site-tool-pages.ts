/** A site's tools in the dashboard (to be built). */
import { Router } from "express";
import type { Renderer } from "./render.ts";

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type SiteToolParts = {};

export function siteToolPages(_parts: SiteToolParts, _render: Renderer): Router {
  return Router();
}
