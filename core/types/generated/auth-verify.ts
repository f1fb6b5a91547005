/* Generated from schemas/auth-verify.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/auth/verify`: the token of a magic link, posted by the page the link opens.
 */
export interface MagicLinkVerification {
  /**
   * `ml_` and 43 base64url characters.
   */
  token: string;
}
