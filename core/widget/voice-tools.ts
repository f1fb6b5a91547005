/**
 * The functions a site's voice agent may call, as realtime providers take them: `search_database`
 * (the site's collections), `search_site` (what the site's pages say, when its crawl indexed any),
 * `submit_lead` and `request_callback` (when lead capture is on; lead-tools.ts) and `scroll_to` (sections of the page, or of another page
 * of the site, which the widget then opens). Each `parameters` is a
 * JSON Schema specialised to the site, so the model is told the collection names, field names and
 * operators it may use instead of guessing them.
 *
 * Providers accept a subset of JSON Schema for function parameters (object, properties, required,
 * enum, items, description, numeric and length bounds, nested anyOf), so only that is used here;
 * in particular no `anyOf`/`oneOf` at the root, which OpenAI refuses. The service still checks
 * every call it receives (schemas/search-params.schema.json, then the collection's field lists):
 * these schemas guide the model, they do not replace the checks.
 */
import { allowedFields } from "../search/check-search.ts";
import type { CollectionSpec } from "../search/search-types.ts";
import { FILTER_OPERATORS, MAX_SEARCH_LIMIT } from "../search/search-types.ts";
import type { VoiceTool } from "../host/plugin.ts";
import { KNOWLEDGE_QUERY } from "../intelligence/knowledge/knowledge-query.ts";
import type { SiteConfig } from "../sites/site-types.ts";
import { requestCallbackTool, submitLeadTool } from "./lead-tools.ts";

export { REQUEST_CALLBACK, SUBMIT_LEAD } from "./lead-tools.ts";

export const SEARCH_DATABASE = "search_database";
export const SCROLL_TO = "scroll_to";
export const SEARCH_SITE = "search_site";

/** The bounds of schemas/search-params.schema.json, repeated so the model keeps within them. */
const MAX_QUERY_LENGTH = 500;
const MAX_FILTERS = 20;
const MAX_IN_VALUES = 50;

export interface VoiceToolOptions {
  /**
   * The `id`s scroll_to may name (from the latest crawl): the sections of the page the widget runs
   * on first, then those of the site's other pages.
   */
  sectionIds?: string[];
  /**
   * Whether `sectionIds` are all the site's (true unless said): when not, and search_site is
   * offered, scroll_to also takes the section id of any passage it returns.
   */
  allSectionIds?: boolean;
  /** Whether the site's knowledge holds passages to search (search_site is offered then only). */
  knowledge?: boolean;
}

/** The tools offered to the voice agent of `site`, in a stable order. */
export function buildVoiceTools(site: SiteConfig, options: VoiceToolOptions = {}): VoiceTool[] {
  const tools: VoiceTool[] = [];
  const search = searchDatabaseTool(site);
  if (search !== undefined) tools.push(search);
  if (options.knowledge === true) tools.push(searchSiteTool(site));
  if (site.lead_capture.enabled) {
    tools.push(submitLeadTool(site.lead_capture.fields), requestCallbackTool());
  }
  const passageIds = options.knowledge === true && options.allSectionIds === false;
  tools.push(scrollToTool(options.sectionIds, passageIds));
  return tools;
}

/** Undefined when the site has nothing to search: a tool that can only fail would mislead. */
function searchDatabaseTool(site: SiteConfig): VoiceTool | undefined {
  const collections: CollectionSpec[] = Object.entries(site.adapter?.collections ?? {}).map(
    ([name, collection]) => ({ name, ...collection }),
  );
  if (collections.length === 0) return undefined;

  // One enum for every collection: per-collection schemas would need a root oneOf. Which field
  // belongs to which collection is in the descriptions, and the service refuses the rest.
  const fields = [...new Set(collections.flatMap(allowedFields))].sort();
  const searchable = collections.filter((c) => c.searchable_fields.length > 0);

  const properties: Record<string, unknown> = {
    collection: {
      type: "string",
      enum: collections.map((c) => c.name),
      description: `The collection to search. ${collections.map(describeCollection).join(" ")}`,
    },
  };
  if (searchable.length > 0) {
    properties.query = {
      type: "string",
      maxLength: MAX_QUERY_LENGTH,
      description:
        "Words to look for, matched case-insensitively inside the collection's searchable " +
        "fields. Leave out to list records by filters alone." +
        (searchable.length < collections.length
          ? ` Only ${searchable.map((c) => c.name).join(", ")} take a query.`
          : ""),
    };
  }
  if (fields.length > 0) {
    properties.filters = {
      type: "array",
      maxItems: MAX_FILTERS,
      description: "Conditions that must all hold. Use only fields of the chosen collection.",
      items: {
        type: "object",
        properties: {
          field: { type: "string", enum: fields, description: "A field of the collection." },
          operator: {
            type: "string",
            enum: [...FILTER_OPERATORS],
            description:
              "eq, neq, gt, gte, lt, lte compare; contains matches text case-insensitively; " +
              "in matches any value of a list.",
          },
          value: filterValueSchema(),
        },
        required: ["field", "operator", "value"],
        additionalProperties: false,
      },
    };
    properties.sort_by = {
      type: "string",
      enum: fields,
      description: "A field of the chosen collection to sort the results by.",
    };
    properties.sort_direction = {
      type: "string",
      enum: ["asc", "desc"],
      description: "asc (the default) or desc.",
    };
  }
  properties.limit = {
    type: "integer",
    minimum: 1,
    maximum: MAX_SEARCH_LIMIT,
    description:
      `How many records to return, 1 to ${MAX_SEARCH_LIMIT}; ` +
      `${MAX_SEARCH_LIMIT} when left out.`,
  };

  return {
    type: "function",
    name: SEARCH_DATABASE,
    description:
      `Searches ${site.business_name}'s own records. Use it whenever the visitor asks about ` +
      "something these collections hold, and answer only from what it returns.",
    parameters: {
      type: "object",
      properties,
      required: ["collection"],
      additionalProperties: false,
    },
  };
}

/** `name: what it holds. Fields: …. Text search covers: ….` */
function describeCollection(collection: CollectionSpec): string {
  const parts = [`${collection.name}:`];
  if (collection.description !== undefined && collection.description.trim() !== "") {
    parts.push(sentence(collection.description.trim()));
  }
  const fields = allowedFields(collection);
  if (fields.length > 0) parts.push(`Fields: ${fields.join(", ")}.`);
  if (collection.searchable_fields.length > 0) {
    parts.push(`Text search covers: ${collection.searchable_fields.join(", ")}.`);
  }
  return parts.join(" ");
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** A scalar, or for `in` a list of scalars, as schemas/search-params.schema.json allows. */
function filterValueSchema(): Record<string, unknown> {
  const scalars = [
    { type: "string", maxLength: MAX_QUERY_LENGTH },
    { type: "number" },
    { type: "boolean" },
  ];
  return {
    description: "A string, number or boolean; for operator in, a list of them.",
    anyOf: [
      ...scalars,
      { type: "array", minItems: 1, maxItems: MAX_IN_VALUES, items: { anyOf: scalars } },
    ],
  };
}

/** The site's pages, searched for what they say (POST /v1/:siteId/knowledge). */
function searchSiteTool(site: SiteConfig): VoiceTool {
  const { maxChars, maxLimit, defaultLimit } = KNOWLEDGE_QUERY;
  return {
    type: "function",
    name: SEARCH_SITE,
    description:
      `Searches the pages of ${site.business_name}'s website for what they say. Use it for ` +
      "questions about the business that its site may answer (opening hours, prices, services, " +
      "policies, directions, delivery and the like), and answer only from the passages it " +
      "returns. Each passage has its page's url and title, its heading and the section_id that " +
      "scroll_to takes to show it.",
    parameters: {
      type: "object",
      properties: {
        query: {
          type: "string",
          minLength: 1,
          maxLength: maxChars,
          description: "The visitor's question, or the words to look for on the site.",
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: maxLimit,
          description: `How many passages to return, 1 to ${maxLimit}; ${defaultLimit} when left out.`,
        },
      },
      required: ["query"],
      additionalProperties: false,
    },
  };
}

/**
 * scroll_to's section id: one of `sectionIds` when given, or (`passageIds`, the site having more
 * than could be listed) also that of any passage search_site returned; any id of the current page
 * when none are known. The widget checks an id against the page and the crawled pages in any case.
 */
function scrollToTool(sectionIds: string[] | undefined, passageIds: boolean): VoiceTool {
  const ids = [...new Set(sectionIds ?? [])].filter((id) => id !== "");
  let sectionId: Record<string, unknown>;
  if (ids.length === 0) {
    sectionId = {
      type: "string",
      minLength: 1,
      description: "The id of a section of the current page (its HTML id attribute, without #).",
    };
  } else if (passageIds) {
    sectionId = {
      type: "string",
      minLength: 1,
      description:
        `The id of the section to show: the section_id of a passage ${SEARCH_SITE} returned, or ` +
        `one of these: ${ids.join(", ")}. One of another page of the site opens that page.`,
    };
  } else {
    sectionId = {
      type: "string",
      enum: ids,
      description:
        "The id of the section to show: one of the current page, or of another page of the " +
        "site, which then opens there.",
    };
  }
  return {
    type: "function",
    name: SCROLL_TO,
    description:
      "Scrolls the page the visitor is on to a section, to show them what you are talking about. " +
      "An id of a section on another page of the site takes the visitor to that page.",
    parameters: {
      type: "object",
      properties: { section_id: sectionId },
      required: ["section_id"],
      additionalProperties: false,
    },
  };
}
