/** The dashboard's leads pages (to be built). */
import { Router } from "express";
import type { Renderer } from "./render.ts";

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type LeadPagesParts = {};

export function leadPages(_parts: LeadPagesParts, _render: Renderer): Router {
  return Router();
}
