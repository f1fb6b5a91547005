/* Generated from schemas/user-data-request.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/user-data/export` and `POST /v1/user-data/delete`: the visitor, by their fingerprint on one site of the workspace.
 */
export interface UserDataRequest {
  /**
   * A site of the key's workspace (and among the key's sites, for a per-site key).
   */
  site_id: string;
  /**
   * 64 lower-case hex characters, as leads, `lead.captured`, `conversation.ended`, `GET /v1/user-data/lookup` and the widget's privacy notice show it.
   */
  user_fingerprint: string;
}
