/* Generated from schemas/api-key-create.schema.json by npm run gen:types. Do not edit. */

/**
 * Body of `POST /v1/api-keys` (dashboard session only). The key's value is returned once, in the response.
 */
export interface ApiKeyCreateRequest {
  /**
   * Label shown in the dashboard's key list.
   */
  name: string;
  /**
   * What the key may do: sites:read (read site configs), sites:write (create, update, delete sites; user-data requests), query:test (call the query endpoint for debugging), analytics:read (read usage metrics), webhooks:write (configure webhooks).
   *
   * @minItems 1
   */
  scopes: ("sites:read" | "sites:write" | "query:test" | "analytics:read" | "webhooks:write")[];
  /**
   * `live` keys start with `vk_live_`, `test` keys with `vk_test_`.
   */
  mode?: "live" | "test";
  /**
   * Restricts the key to these sites (a per-tenant key); left out, the key serves every site of the workspace.
   *
   * @minItems 1
   * @maxItems 100
   */
  site_ids?: string[];
}
