/* Generated from schemas/auth-signin.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/auth/signin`.
 */
export interface SignIn {
  /**
   * The account's email address, in any case.
   */
  email: string;
  /**
   * The account's password.
   */
  password: string;
}
