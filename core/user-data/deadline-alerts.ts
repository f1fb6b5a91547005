/**
 * The alert of a visitor data request at risk of missing its deadline (export 30 days, erasure
 * 72 hours): an error in the log and a mail to the workspace's owner, once per request, raised
 * well before the deadline (after a quarter of the time, or after five failed attempts,
 * whichever comes first), and the notice when a deadline did pass.
 */
import type { Logger } from "pino";
import type { Mailer } from "../mail/mailer.ts";
import type { Store } from "../store/store.ts";
import type { UserDataRequestRow } from "../store/repos/user-data-repo.ts";

export interface AlertParts {
  store: Store;
  mailer: Mailer;
  logger: Logger;
}

const what = (row: UserDataRequestRow) => (row.kind === "export" ? "data export" : "data erasure");

/** Tells the owner that `row` is at risk (`missed`: its deadline passed and it failed). */
export async function alertOwner(
  parts: AlertParts,
  row: UserDataRequestRow,
  missed: boolean,
): Promise<void> {
  const due = new Date(Number(row.due_by)).toISOString();
  const fields = {
    request_id: row.id,
    site_id: row.site_id,
    type: row.kind,
    due_by: due,
    attempts: Number(row.attempts),
  };
  const summary = missed
    ? `A ${what(row)} request missed its deadline`
    : `A ${what(row)} request is at risk of missing its deadline`;
  parts.logger.error({ ...fields, last_error: row.last_error ?? undefined }, summary);
  const to = await parts.store.workspaces.ownerEmail(row.workspace_id);
  if (to === undefined) {
    parts.logger.warn({ request_id: row.id }, "no owner email to alert of a user-data request");
    return;
  }
  try {
    await parts.mailer.send({
      to,
      subject: missed
        ? `Sitevoice: ${what(row)} ${row.id} missed its deadline`
        : `Sitevoice: ${what(row)} ${row.id} is not done yet (due by ${due})`,
      text: [
        `${summary}.`,
        "",
        `Request: ${row.id}`,
        `Site: ${row.site_id}`,
        `Due by: ${due}`,
        `Attempts so far: ${fields.attempts}`,
        "",
        missed
          ? "It has been marked failed. Ask for it again once the cause is fixed: GET /v1/user-data/requests/" +
            row.id
          : "The service keeps retrying it. The operator's log has the error of each attempt.",
      ].join("\n"),
    });
  } catch (error) {
    parts.logger.error({ err: error, request_id: row.id }, "could not mail the owner");
  }
}
