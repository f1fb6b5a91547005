/* Generated from schemas/auth-magic-link.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/auth/magic-link`: where to mail a single-use sign-in link.
 */
export interface MagicLink {
  /**
   * The account's email address, in any case.
   */
  email: string;
}
