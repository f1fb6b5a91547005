/* Generated from schemas/workspace-invitation.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/workspace/invitations` (an owner's dashboard session): who to invite, and as what.
 */
export interface Invitation {
  /**
   * An email address, compared without regard to case.
   */
  email: string;
  /**
   * `owner` (everything, members, deletion) or `member` (everything else).
   */
  role: "owner" | "member";
}
