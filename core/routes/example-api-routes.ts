/**
 * The demo's example backend (SITEVOICE_DEMO): the JSON lists in `examples/api/`, served
 * read-only under `/example-api/`, so an example site's searches answer with data on a bare
 * `npm start`, with no customer API to reach. Files only: no listing, no dotfiles, no redirects.
 */
import express, { Router } from "express";
import { fileURLToPath } from "node:url";

export const EXAMPLE_API_DIR = fileURLToPath(new URL("../../examples/api/", import.meta.url));

export function exampleApiRoutes(): Router {
  const router = Router();
  router.use(
    "/example-api",
    express.static(EXAMPLE_API_DIR, { index: false, dotfiles: "deny", redirect: false }),
  );
  return router;
}
