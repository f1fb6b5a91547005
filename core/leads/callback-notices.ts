/**
 * Sends a callback request's mail (callback-mail.ts) to the workspace's contact address after the
 * widget has its answer: the relay may be slow, and the lead is stored whatever it does. No
 * contact address, or a relay that refuses, is logged with the lead's id only (never the
 * visitor's words). A stop waits for the mails under way.
 */
import type { Logger } from "pino";
import type { Mailer } from "../mail/mailer.ts";
import type { Store } from "../store/store.ts";
import { AfterAnswer } from "../util/after-answer.ts";
import { callbackMail } from "./callback-mail.ts";
import type { LeadView } from "./lead-view.ts";

export class CallbackNotices {
  private readonly afterAnswer: AfterAnswer;

  constructor(private readonly parts: { store: Store; mailer: Mailer; logger: Logger }) {
    this.afterAnswer = new AfterAnswer(parts.logger);
  }

  /** Starts mailing `lead` (a callback of `workspaceId`) without waiting for it. */
  notify(workspaceId: string, lead: LeadView): void {
    const context = { lead_id: lead.id, site_id: lead.site_id };
    this.afterAnswer.run("could not mail a callback request", context, async () => {
      const to = await this.parts.store.workspaces.ownerEmail(workspaceId);
      if (to === undefined) {
        this.parts.logger.warn(context, "no contact address to mail a callback request to");
        return;
      }
      await this.parts.mailer.send(callbackMail(to, lead));
    });
  }

  /** Resolves once the mails started so far are sent or failed. */
  settled(): Promise<void> {
    return this.afterAnswer.settled();
  }
}
