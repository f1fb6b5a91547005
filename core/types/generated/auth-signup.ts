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
   * 1 to 200 characters, holding no link, web or mail address (it is quoted in invitation mails); the first label of the email's domain (`acme` for ana@acme.example) when left out.
   */
  workspace_name?: string;
}
