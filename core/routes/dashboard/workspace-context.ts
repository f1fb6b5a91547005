/**
 * What every workspace page of the dashboard needs before it draws: a signed-in member, the
 * workspace named by `?workspace_id=` (one of theirs), and the principal they act as there. A page
 * asked for without a session sends the browser to sign in; an htmx action without one is 401.
 * Errors in these routes are drawn as HTML, never as a bare JSON page: an htmx action gets the
 * `error` fragment (its message in a role=alert paragraph) with the error's status, a page the
 * `error` page.
 */
import type { NextFunction, Request, Response } from "express";
import { dashboardPrincipal, type Principal } from "../../auth/principal.ts";
import { errors, isServiceError } from "../../errors.ts";
import { errorHeaders, httpStatus } from "../../http/error-status.ts";
import type { Renderer } from "./render.ts";

export type Workspace = NonNullable<Request["account"]>["workspaces"][number];

/** The workspace and principal a workspace page acts with (set by `inWorkspace`). */
export interface WorkspaceLocals {
  workspace: Workspace;
  principal: Principal;
}

export const localsOf = (res: Response) => res.locals as unknown as WorkspaceLocals;

/** An htmx request: it swaps the answer into the page, so an error comes as a fragment. */
export const isHtmx = (req: Request) => req.get("hx-request") === "true";

export function inWorkspace(req: Request, res: Response, next: NextFunction): void {
  const account = req.account;
  const page = req.method === "GET" && !isHtmx(req);
  if (account === undefined) {
    if (page) return res.redirect(303, "/dashboard/sign-in");
    throw errors.unauthorized("Sign in to the dashboard first");
  }
  const workspace = account.workspaces.find((w) => w.id === req.query.workspace_id);
  if (workspace === undefined) {
    if (page) return res.redirect(303, "/dashboard");
    throw errors.notFound("Workspace", String(req.query.workspace_id ?? ""));
  }
  res.locals.account = account;
  res.locals.workspace = workspace;
  res.locals.principal = dashboardPrincipal(workspace.id, account.user.id);
  next();
}

/**
 * After a change that leads to another page: htmx loads it whole (HX-Redirect, so its scripts
 * run), a plain form follows the 303.
 */
export function toPage(res: Response, url: string): void {
  if (isHtmx(res.req)) res.set("HX-Redirect", url).status(204).end();
  else res.redirect(303, url);
}

/**
 * The dashboard's error handler: service errors as HTML, anything else to the service's. A
 * refusal listing several problems says how many and lists each (its message names its field);
 * one problem is said once, as the message.
 */
export function dashboardErrors(render: Renderer) {
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!isServiceError(error) || res.headersSent) return next(error);
    const status = httpStatus(error);
    res.set(errorHeaders(error));
    const listed = Array.isArray(error.details.errors) ? error.details.errors : [];
    const several = listed.length > 1;
    const context = {
      message: several ? `Nothing was changed: ${listed.length} problems.` : error.message,
      code: error.code,
      details: { ...error.details, errors: several ? listed : [] },
    };
    if (isHtmx(req) || req.method !== "GET") return render.fragment(res, "error", context, status);
    res.status(status);
    render.page(res, "error", "Something went wrong", context);
  };
}
