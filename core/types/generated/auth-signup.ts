/* Generated from schemas/auth-signup.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/auth/signup`: a new account and its workspace, of which it is the owner.
 */
export interface SignUp {
  /**
   * The account's email address, compared without regard to case.
   */
  email: string;
  /**
   * 10 to 200 characters.
   */
  password: string;
  /**
   * 1 to 200 characters; the email's domain when left out.
   */
  workspace_name?: string;
}
