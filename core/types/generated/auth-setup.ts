/* Generated from schemas/auth-setup.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/auth/setup`: the setup token printed at the first start makes this account (new, or existing with this password) the default workspace's owner.
 */
export interface OwnerSetup {
  /**
   * `st_` and 43 base64url characters, from the link.
   */
  token: string;
  /**
   * An email address, compared without regard to case.
   */
  email: string;
  /**
   * 10 to 200 characters.
   */
  password: string;
}
