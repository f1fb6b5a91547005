/**
 * A form's refusal drawn beside its fields. Each problem a refusal lists (`details.errors`) goes
 * into the slot under the control that holds its field (`<ul id="problem-<name>">`, swapped out of
 * band by htmx); every slot of the form is drawn again, so a problem fixed since goes away; the
 * form's answer area says how many there are and lists those no control holds. Each problem is
 * shown once, in its own words: its message names the field, so nothing is put before it.
 */
import type { Response } from "express";
import { isServiceError } from "../../errors.ts";
import { errorHeaders, httpStatus } from "../../http/error-status.ts";
import type { Renderer } from "./render.ts";

/** A form's controls, each with a problem slot, and which of them holds a field of the site. */
export interface FormControls {
  /** The controls' names, as the form sends them. */
  names: readonly string[];
  /** The control that holds the dotted `field` of a problem, undefined when none does. */
  controlOf(field: string): string | undefined;
}

/**
 * Draws `error` beside the form's fields when it is a refusal listing problems, as the form's
 * answer (`what` says what did not happen: "The settings were not saved"), and says so; any other
 * error is left to the caller (the dashboard's error handler draws it).
 */
export function drawFieldProblems(
  render: Renderer,
  res: Response,
  error: unknown,
  form: FormControls,
  what: string,
): boolean {
  if (!isServiceError(error) || !Array.isArray(error.details.errors)) return false;
  const listed = (error.details.errors as { field?: unknown; message?: unknown }[]).map(
    ({ field, message }) => ({ field: String(field ?? ""), message: String(message ?? "") }),
  );
  if (listed.length === 0) return false;
  const byControl = new Map<string, string[]>();
  const unplaced: { field: string; message: string }[] = [];
  for (const problem of listed) {
    const control = form.controlOf(problem.field);
    if (control === undefined) unplaced.push(problem);
    else byControl.set(control, [...(byControl.get(control) ?? []), problem.message]);
  }
  const slots = form.names.map((name) => ({ name, messages: byControl.get(name) ?? [] }));
  res.set(errorHeaders(error));
  render.fragment(
    res,
    "field-problems",
    { code: error.code, summary: summary(what, listed.length, unplaced.length), unplaced, slots },
    httpStatus(error),
  );
  return true;
}

function summary(what: string, count: number, unplaced: number): string {
  const problems = `${count} ${count === 1 ? "problem" : "problems"}`;
  const where =
    unplaced === count
      ? "listed below"
      : unplaced > 0
        ? "shown beside their fields and below"
        : count === 1
          ? "shown beside its field"
          : "each shown beside its field";
  return `${what}: ${problems}, ${where}.`;
}
