/** The dashboard's webhooks pages (to be built). */
import { Router } from "express";
import type { Renderer } from "./render.ts";

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type WebhookPagesParts = {};

export function webhookPages(_parts: WebhookPagesParts, _render: Renderer): Router {
  return Router();
}
