/** The dashboard's visitor-data pages (to be built). */
import { Router } from "express";
import type { Renderer } from "./render.ts";

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type VisitorDataPagesParts = {};

export function visitorDataPages(_parts: VisitorDataPagesParts, _render: Renderer): Router {
  return Router();
}
