/* Generated from schemas/site-patch.schema.json by npm run gen:types. Do not edit. */

/**
 * A host name (letters, digits, hyphens, dot-separated labels), optionally followed by `:port`. No scheme, path or trailing dot. Host names compare case-insensitively; the service stores them in lowercase.
 */
export type Host = string;
/**
 * Distinct hosts, each matched like `domain`.
 *
 * @maxItems 20
 */
export type HostList = Host[];
/**
 * A URL path pattern starting with `/`; `*` matches any run of characters (including `/`). The query string is not matched.
 */
export type PagePattern = string;
/**
 * URL path patterns; a page matches the list when any pattern matches it.
 *
 * @maxItems 100
 */
export type PagePatternList = PagePattern[];
/**
 * Name of a record field; dots reach into nested objects.
 */
export type FieldName = string;

/**
 * Body of `PATCH /v1/sites/:id`: one or more writable SiteConfig fields (see site.schema.json for each one). A field that is present replaces the stored value; a field left out keeps it, and no defaults are filled in. `adapter: null` removes the adapter. `site_id` cannot change and read-only fields are rejected.
 */
export interface SitePatchRequest {
  /**
   * Version of this schema the config follows. Only 1 exists; a later version will be a new schema with a migration.
   */
  schema_version?: 1;
  /**
   * Name of the business, used in the assistant's prompt and the dashboard.
   */
  business_name?: string;
  /**
   * What the business does, in a few sentences; part of the assistant's prompt. May be empty.
   */
  business_description?: string;
  /**
   * Registered host name (and port, if not the default) of the website. The widget's Origin must be `https://` plus this value exactly; a `localhost` or `127.0.0.1` domain also accepts `http://`.
   */
  domain?: Host;
  additional_domains?: HostList;
  /**
   * Industry key; loads the matching prompt template (for example dental, restaurant, retail, real-estate, legal, home-services, saas) as a starting point. Keys without a template fall back to `general`.
   */
  industry?: string;
  /**
   * IANA time-zone name (or UTC). Used in the resolved prompt and to align analytics buckets.
   */
  timezone?: string;
  /**
   * BCP 47 language tag the assistant speaks and the widget shows.
   */
  language?: string;
  /**
   * Voice of the assistant: with the built-in OpenAI provider one of alloy, ash, ballad, coral, echo, sage, shimmer, verse, marin or cedar; with another provider, one of its voice names. The voice provider rejects names it does not know when a session starts.
   */
  voice?: string;
  /**
   * Free-form custom instructions laid over the industry template in the assistant's prompt.
   */
  personality?: string;
  /**
   * Topics the assistant refuses to discuss.
   *
   * @maxItems 50
   */
  restricted_topics?: string[];
  /**
   * How the widget looks and what it says. Missing members take their defaults.
   */
  appearance?: {
    /**
     * Accent color as a 6-digit hex value.
     */
    color: string;
    /**
     * Corner of the page the button sits in.
     */
    position: "bottom-right" | "bottom-left";
    /**
     * Size of the button.
     */
    size: "small" | "medium" | "large";
    /**
     * Overrides of the widget's own words, by key; each wins over the site's language's string (or the English one). Unknown keys are refused.
     */
    strings?: {
      /**
       * The launcher button's label for screen readers. {business} is replaced by the business name.
       */
      launcher?: string;
      /**
       * The panel's close button (its label) and the read-only notice's Close button.
       */
      close?: string;
      /**
       * The button that shows the privacy notice again.
       */
      privacy?: string;
      /**
       * The privacy notice shown before the first conversation. {business} is replaced by the business name.
       */
      notice?: string;
      /**
       * The notice's line with the visitor's ID, which goes where {id} is.
       */
      visitor_id?: string;
      /**
       * The notice's button that starts the conversation.
       */
      start?: string;
      /**
       * The notice's button that declines it.
       */
      not_now?: string;
      /**
       * The button that ends the call.
       */
      end_call?: string;
      /**
       * The state while the call connects.
       */
      connecting?: string;
      /**
       * The state while a lost call or a resumed conversation connects again.
       */
      reconnecting?: string;
      /**
       * The state while the assistant listens.
       */
      listening?: string;
      /**
       * The state while the assistant speaks.
       */
      speaking?: string;
      /**
       * The state once the call has ended.
       */
      ended?: string;
      /**
       * The state when something failed that no other message says.
       */
      error?: string;
      /**
       * The message when the browser did not allow the microphone.
       */
      microphone_refused?: string;
      /**
       * The message when the voice provider is unavailable.
       */
      unavailable?: string;
      /**
       * The message when too many conversations are starting.
       */
      busy?: string;
      /**
       * The message when the service or the provider could not be reached.
       */
      failed?: string;
      /**
       * The message when the connection was lost twice.
       */
      lost?: string;
    };
  };
  /**
   * How the assistant should say words it would get wrong: each key is a word as written, its value the spoken form. Applies to this site only.
   */
  pronunciations?: {
    [k: string]: string;
  };
  enabled_pages?: PagePatternList;
  disabled_pages?: PagePatternList;
  /**
   * Days transcripts are kept before the daily job deletes them; 0 stores none.
   */
  transcript_retention_days?: number;
  /**
   * Whether the assistant offers to take the visitor's contact details (the `submit_lead` function) and which fields it asks for.
   */
  lead_capture?: {
    /**
     * Offer lead capture in conversations.
     */
    enabled: boolean;
    /**
     * Contact fields the assistant asks for. A lead needs an email or a phone to be accepted.
     */
    fields: ("name" | "email" | "phone" | "message")[];
  };
  /**
   * The new adapter, replacing the stored one as a whole, or null to remove it.
   */
  adapter?: null | Adapter;
}
/**
 * A data adapter: its plugin `type`, the plugin's `config`, and the collections the assistant may search. Each adapter plugin checks its own `config` (and may restrict its collections) with the JSON Schema it declares.
 */
export interface Adapter {
  /**
   * Name of the adapter plugin: a built-in (rest, postgres, mysql) or an installed one.
   */
  type: string;
  /**
   * Settings of the adapter plugin; its shape is the plugin's own configSchema (see the plugin's config.schema.json).
   */
  config: {
    [k: string]: unknown;
  };
  /**
   * The searchable collections, keyed by the name the assistant uses.
   */
  collections: {
    [k: string]: Collection;
  };
}
/**
 * One searchable collection. Only the listed fields may be named in a search (filters, sort_by, field references); anything else is 422 validation_failed.
 */
export interface Collection {
  /**
   * For the REST adapter a path appended to `baseUrl`; for other adapters the backing table or list name.
   */
  source: string;
  /**
   * Fields matched by free-text queries; also allowed as field references.
   *
   * @maxItems 200
   */
  searchable_fields: FieldName[];
  /**
   * Fields allowed in filters and sort_by.
   *
   * @maxItems 200
   */
  filterable_fields: FieldName[];
  /**
   * Fields returned in results; also allowed as field references.
   *
   * @maxItems 200
   */
  display_fields: FieldName[];
  /**
   * What the collection holds, for the assistant's prompt and site intelligence.
   */
  description?: string;
}
