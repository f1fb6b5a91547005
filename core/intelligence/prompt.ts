/**
 * The personality prompt: the instructions a voice session starts with, assembled with Handlebars
 * from `templates/` and from what prompt-template plugins add (prompt-templates.ts, which also
 * says why the templates do no HTML escaping), filled with the data of one site.
 *
 * What escaping remains is about the text's shape: single-line values (names, topics, words)
 * have their whitespace collapsed so they cannot start a line of their own and pose as a section
 * or a rule.
 */
import type { SiteConfig } from "../sites/site-types.ts";
import { formatLocalTime } from "./local-time.ts";
import {
  FALLBACK_INDUSTRY,
  loadPromptTemplates,
  type PromptData,
  type PromptTemplates,
} from "./prompt-templates.ts";

/** The compiled built-in templates, for callers that pass no templates of their own. */
let defaultTemplates: PromptTemplates | undefined;

/**
 * The personality prompt of `site` at `now`. `templates` defaults to the built-in ones, loaded on
 * first use. A plugin helper that throws makes this throw.
 */
export function buildPersonalityPrompt(
  site: SiteConfig,
  options: {
    now: Date;
    templates?: PromptTemplates;
    pages?: readonly PromptPageSource[];
    /** Whether the session offers search_site (the site's knowledge holds passages). */
    knowledge?: boolean;
    /** Whether the visitor types and reads the answers (a text session) instead of speaking. */
    textMode?: boolean;
  },
): string {
  const templates = options.templates ?? (defaultTemplates ??= loadPromptTemplates());
  const data = promptData(site, options.now, options.pages, options.knowledge, options.textMode);
  if (!templates.industries.has(data.industry)) data.industry = FALLBACK_INDUSTRY;
  return tidy(templates.render(data.industry, data));
}

/**
 * The data the templates see for `site` at `now`, with the pages of its latest crawl, whether
 * its knowledge is searched (search_site) and whether the visitor types (a text session).
 */
export function promptData(
  site: SiteConfig,
  now: Date,
  crawled: readonly PromptPageSource[] = [],
  knowledge = false,
  textMode = false,
): PromptData {
  const time = formatLocalTime(now, site.timezone);
  const fields = site.lead_capture?.fields ?? [];
  const pages = promptPages(crawled);
  return {
    business_name: oneLine(site.business_name),
    business_description: paragraph(site.business_description),
    industry: site.industry ?? FALLBACK_INDUSTRY,
    language: oneLine(site.language),
    language_name: languageName(site.language),
    timezone: time.timezone,
    local_time: time.text,
    personality: paragraph(site.personality),
    restricted_topics: (site.restricted_topics ?? []).map(oneLine).filter((t) => t !== ""),
    pronunciations: Object.entries(site.pronunciations ?? {})
      .map(([word, say]) => ({ word: oneLine(word), say: oneLine(say) }))
      .filter((p) => p.word !== "" && p.say !== ""),
    collections: Object.entries(site.adapter?.collections ?? {}).map(([name, collection]) => ({
      name,
      description: oneLine(collection.description),
    })),
    lead_capture: {
      enabled: site.lead_capture?.enabled === true && fields.length > 0,
      fields: [...fields],
      fields_text: listFormat.format(fields.map((f) => LEAD_FIELD_WORDS[f] ?? f)),
    },
    knowledge,
    text_mode: textMode,
    pages: pages.listed,
    pages_more: pages.more,
  };
}

/** A crawled page as the prompt takes it (a CrawledPage has these fields). */
export interface PromptPageSource {
  url: string;
  title: string | null;
  description: string | null;
}

/** The most pages the prompt lists, and the most characters their lines take together. */
export const PROMPT_PAGES = { max: 50, budgetChars: 6_000, titleChars: 100, descriptionChars: 200 };

/**
 * The pages the prompt lists: shallow paths first (the home page, then the sections of the site),
 * in crawl order within a depth, each value on one line and cut to its length, until the page cap
 * or the character budget is reached; `more` counts the pages left out.
 */
function promptPages(crawled: readonly PromptPageSource[]): {
  listed: PromptData["pages"];
  more: number;
} {
  const candidates = crawled.flatMap((page, index) => {
    const path = pathOf(page.url);
    return path === undefined ? [] : [{ page, path, index, depth: depthOf(path) }];
  });
  candidates.sort((a, b) => a.depth - b.depth || a.index - b.index);
  const listed: PromptData["pages"] = [];
  let used = 0;
  for (const { page, path } of candidates) {
    if (listed.length === PROMPT_PAGES.max) break;
    const entry = {
      title: cut(oneLine(page.title ?? ""), PROMPT_PAGES.titleChars),
      path: cut(oneLine(path), PROMPT_PAGES.titleChars),
      description: cut(oneLine(page.description ?? ""), PROMPT_PAGES.descriptionChars),
    };
    const length = entry.title.length + entry.path.length + entry.description.length + 8;
    if (used + length > PROMPT_PAGES.budgetChars) break;
    used += length;
    listed.push(entry);
  }
  return { listed, more: candidates.length - listed.length };
}

/** The path (and query) of a page's URL; undefined when it is not an http(s) URL. */
function pathOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return undefined;
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return undefined;
  }
}

const depthOf = (path: string) =>
  path
    .split("?")[0]!
    .split("/")
    .filter((s) => s !== "").length;

/** `text` cut to `max` characters, an ellipsis marking the cut. */
const cut = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;

/** The prompt is in English, so lists read "a, b and c" and language names are English. */
const listFormat = new Intl.ListFormat("en-GB", { type: "conjunction" });
const languageNames = new Intl.DisplayNames(["en"], { type: "language" });

const LEAD_FIELD_WORDS: Record<string, string> = {
  name: "their name",
  email: "an email address",
  phone: "a phone number",
  message: "a short message about what they need",
};

function languageName(tag: string): string {
  try {
    return languageNames.of(tag) ?? tag;
  } catch {
    // A tag the schema lets through but ICU refuses: the tag itself still tells the model.
    return tag;
  }
}

/** Runs of whitespace, line breaks included, become one space: the value stays on its line. */
function oneLine(value: string | undefined): string {
  return (value ?? "").replace(CONTROL_CHARACTERS, " ").replace(/\s+/g, " ").trim();
}

/** Multi-line text keeps its lines; control characters go and the ends are trimmed. */
function paragraph(value: string | undefined): string {
  return (value ?? "").replace(/\r\n?/g, "\n").replace(CONTROL_CHARACTERS, " ").trim();
}

// Everything below U+0020 except tab and line feed, and DEL: invisible, or harmful to the reader.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/**
 * Trailing spaces go, runs of blank lines become one, so a section a site does not fill leaves no
 * gap; the whole is trimmed.
 */
function tidy(text: string): string {
  return text
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
