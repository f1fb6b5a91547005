/* Generated from schemas/auth-accept.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/auth/accept`: an invitation's token; a password when the invited email has no account yet.
 */
export interface InvitationAcceptance {
  /**
   * `inv_` and 43 base64url characters, from the link.
   */
  token: string;
  /**
   * 10 to 200 characters.
   */
  password?: string;
}
