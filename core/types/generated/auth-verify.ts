/* Generated from schemas/auth-verify.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/auth/verify`: the token of a mailed link, a sign-in link or a sign-up's confirmation, posted by the page the link opens.
 */
export interface MailedLinkVerification {
  /**
   * `ml_` (a sign-in link) or `su_` (a sign-up's confirmation) and 43 base64url characters.
   */
  token: string;
}
