/**
 * The invitation mail. A workspace's name is written by whoever signed it up, a stranger with
 * open sign-up, so it is never in the subject (which a mail list shows as the sender's words):
 * the subject is a fixed sentence with the inviter's address, which signing in proved. The body
 * quotes the name on a line of its own, as plain text (no HTML part, nothing a reader would make
 * a link of: workspace-name.ts refuses such names, and one stored before that is left out).
 */
import type { Mail } from "../mail/mailer.ts";
import type { Role } from "../store/repos/accounts-repo.ts";
import { mailableWorkspaceName } from "./workspace-name.ts";

export function invitationMail(invitation: {
  to: string;
  /** The inviter's address: a signed-in user's, so proved. */
  inviter: string;
  /** Undefined when the workspace is gone. */
  workspaceName: string | undefined;
  role: Role;
  link: string;
}): Mail {
  const name =
    invitation.workspaceName === undefined
      ? undefined
      : mailableWorkspaceName(invitation.workspaceName);
  return {
    to: invitation.to,
    subject: `${invitation.inviter} invited you to a Sitevoice workspace`,
    text: [
      `${invitation.inviter} invited you to a workspace on Sitevoice, as ${invitation.role}.`,
      ...(name === undefined
        ? []
        : ["", "The workspace's name, as its owner wrote it:", "", `  "${name}"`]),
      "",
      "Open this link within 7 days to accept. It works once.",
      "",
      invitation.link,
      "",
      "If you did not expect this invitation, ignore this mail.",
    ].join("\n"),
  };
}
