/** The dashboard's usage pages (to be built). */
import { Router } from "express";
import type { Renderer } from "./render.ts";

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type UsagePagesParts = {};

export function usagePages(_parts: UsagePagesParts, _render: Renderer): Router {
  return Router();
}
