/* Generated from schemas/oauth-start.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/sites/:id/oauth/start` (a `sites:write` key or a dashboard session): may be empty. The answer's `authorization_url` is opened in the browser of the person who connects the site's data.
 */
export interface OauthStart {
  /**
   * The dashboard page the browser comes back to once connected (or refused): a path under `/dashboard/`. By default the site's dashboard page.
   */
  return_to?: string;
}
