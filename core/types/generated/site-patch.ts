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
       * The message when the browser did not allow the microphone; it offers typing instead.
       */
      microphone_refused?: string;
      /**
       * The message when the browser finds no microphone; it offers typing instead.
       */
      no_microphone?: string;
      /**
       * The message when the page is not served over https, where browsers give no microphone; it offers typing instead.
       */
      insecure?: string;
      /**
       * The message when the voice connection could not be made; it offers typing instead.
       */
      voice_failed?: string;
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
      /**
       * The title over the captions, the conversation written out.
       */
      captions?: string;
      /**
       * The captions' label of what the visitor said or typed.
       */
      you?: string;
      /**
       * The captions' label of what the assistant said or wrote.
       */
      assistant?: string;
      /**
       * The captions' line when the assistant looked something up in the site's data; what it looked up (a collection) goes where {what} is.
       */
      looked_up?: string;
      /**
       * The captions' line when the assistant searched the site; the search's words go where {what} is.
       */
      searched_site?: string;
      /**
       * The captions' line when the assistant passed the visitor's details on to the business.
       */
      sent_details?: string;
      /**
       * The button that hides the captions.
       */
      hide_captions?: string;
      /**
       * The button that shows the captions again.
       */
      show_captions?: string;
      /**
       * The typing field's placeholder and its label for screen readers.
       */
      message?: string;
      /**
       * The button that sends what the visitor typed.
       */
      send?: string;
      /**
       * The button that leaves talking for typing.
       */
      type_instead?: string;
      /**
       * The state once the visitor can type.
       */
      typing_ready?: string;
      /**
       * The state while the assistant writes its answer.
       */
      writing?: string;
      /**
       * The button that mutes the microphone during a call.
       */
      mute?: string;
      /**
       * The state while the microphone is muted.
       */
      muted?: string;
      /**
       * The button that ends a typed conversation.
       */
      end_chat?: string;
      /**
       * The status once a typed conversation has ended (a call's end says `ended`).
       */
      chat_ended?: string;
      /**
       * The button that opens the form asking the business to call or write back.
       */
      person?: string;
      /**
       * The call-back form's first line. {business} is replaced by the business name.
       */
      callback_intro?: string;
      /**
       * The call-back form's name field.
       */
      name?: string;
      /**
       * The call-back form's phone field.
       */
      phone?: string;
      /**
       * The call-back form's email field.
       */
      email?: string;
      /**
       * The call-back form's field for what it is about.
       */
      reason?: string;
      /**
       * The call-back form's button that sends it.
       */
      send_callback?: string;
      /**
       * The call-back form's button that closes it without sending.
       */
      cancel?: string;
      /**
       * The call-back form's message when the name, or both the phone and the email, are missing.
       */
      callback_missing?: string;
      /**
       * The message once the call-back request was sent. {business} is replaced by the business name.
       */
      callback_sent?: string;
      /**
       * The message when the call-back request could not be sent.
       */
      callback_failed?: string;
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
