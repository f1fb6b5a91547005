/**
 * The personality prompt: the instructions a voice session starts with, assembled with Handlebars
 * from `templates/` (the `base.hbs` layout, `partials/*.hbs`, one `industries/<industry>.hbs` per
 * industry) and from what prompt-template plugins add.
 *
 * Escaping. The prompt is plain text for a voice model, not HTML, so Handlebars' HTML escaping
 * would only corrupt it ("Luigi's" would reach the model as "Luigi&#x27;s"); templates are
 * therefore compiled with `noEscape: true`. That is safe because site text only ever enters as
 * data: it is never concatenated into template source, and Handlebars never parses a value it
 * prints, so a business name such as `{{> industry}}` comes out literally and expands nothing.
 * Which industry template is used is decided here from a Map (not by a dynamic partial, not by
 * property lookup on an object), so an industry key cannot reach other partials or `__proto__`.
 * What escaping remains is about the text's shape: single-line values (names, topics, words)
 * have their whitespace collapsed so they cannot start a line of their own and pose as a section
 * or a rule.
 */
import { LRUCache } from "lru-cache";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";
import type { PromptTemplateSource } from "../host/plugin.ts";
import type { SiteConfig } from "../sites/site-types.ts";

/** `templates/` of this repository. */
export const PROMPT_TEMPLATES_DIR = fileURLToPath(new URL("../../templates/", import.meta.url));

/** The industry used when a site names one without a template. */
export const FALLBACK_INDUSTRY = "general";

/** The partial name the layout includes the site's industry template by; plugins may not take it. */
const INDUSTRY_PARTIAL = "industry";

/**
 * Text templates: `noEscape` because the output is not HTML (see the header); `strict: false`
 * so that a field a plugin template names but a site lacks prints nothing instead of failing a
 * voice session.
 */
const COMPILE_OPTIONS: CompileOptions = { noEscape: true, strict: false };

type CompileOptions = NonNullable<Parameters<typeof Handlebars.compile>[1]>;
type Template = Handlebars.TemplateDelegate<PromptData>;

/** A template that does not parse, or a plugin template or partial with a name we do not take. */
export class PromptTemplateError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PromptTemplateError";
  }
}

/**
 * What every template sees. Built from the SiteConfig in `promptData`; lists are arrays of plain
 * objects so that templates iterate them with `{{#each}}` without touching the site's own maps.
 */
export interface PromptData {
  business_name: string;
  business_description: string;
  /** The industry whose template is used: the site's, or `general` when it has none. */
  industry: string;
  language: string;
  /** The language in English words, such as "American English" for en-US. */
  language_name: string;
  /** The time zone the local time is in: the site's, or UTC when the site's is not known. */
  timezone: string;
  /** Such as "Saturday, 21 November 2026, 14:05". */
  local_time: string;
  personality: string;
  restricted_topics: string[];
  pronunciations: { word: string; say: string }[];
  collections: { name: string; description: string }[];
  lead_capture: { enabled: boolean; fields: string[]; fields_text: string };
}

/** Loaded and compiled templates, ready for `buildPersonalityPrompt`. */
export interface PromptTemplates {
  /** The industry keys with a template, built-in and from plugins. */
  readonly industries: ReadonlySet<string>;
  /** Renders `data` with the given industry template (falling back to general). */
  render(industry: string, data: PromptData): string;
}

/** Template sources by name, as read from a templates folder. */
interface TemplateFiles {
  base: string;
  partials: Map<string, string>;
  industries: Map<string, string>;
}

/** Sources per folder: the files are read once, at start-up, not per conversation. */
const filesCache = new Map<string, TemplateFiles>();
/** The compiled built-in templates, for callers that pass no templates of their own. */
let defaultTemplates: PromptTemplates | undefined;

/**
 * Loads the templates of `dir` (synchronously; meant for start-up) and lays the plugins' over them,
 * in order, so a later plugin wins over an earlier one and every plugin over the files:
 *
 * - `templates.base` replaces the layout; `templates["industries/<name>"]` adds or replaces the
 *   template of industry `<name>`. Any other template name is refused.
 * - `partials.<name>` adds or replaces `{{> <name>}}` (the built-in ones are the files of
 *   `partials/`: tools, pronunciations, hard-rules). `industry` is reserved for the site's
 *   industry template.
 * - `helpers.<name>` adds a helper to this set of templates only; Handlebars' own (`if`, `each`,
 *   …) cannot be replaced.
 *
 * Throws PromptTemplateError for a template that does not parse or a refused name, so a broken
 * template shows at start-up rather than in a visitor's conversation.
 */
export function loadPromptTemplates(
  dir: string = PROMPT_TEMPLATES_DIR,
  plugins: readonly PromptTemplateSource[] = [],
): PromptTemplates {
  const files = readTemplateFiles(dir);
  // A fresh environment: helpers and partials of one set never leak into the global Handlebars
  // or into another set (tests, a reload with other plugins).
  const env = Handlebars.create();
  let base = files.base;
  const partials = new Map(files.partials);
  const industries = new Map(files.industries);
  const helpers = new Map<string, (...args: unknown[]) => unknown>();

  plugins.forEach((plugin, index) => {
    const from = `prompt-template plugin #${index + 1}`;
    for (const [name, source] of Object.entries(plugin.templates ?? {})) {
      if (name === "base") base = source;
      else if (/^industries\/[a-z0-9-]{1,40}$/.test(name)) {
        industries.set(name.slice("industries/".length), source);
      } else {
        throw new PromptTemplateError(
          `${from}: template "${name}" is not "base" or "industries/<industry>"`,
        );
      }
    }
    for (const [name, source] of Object.entries(plugin.partials ?? {})) {
      if (name === INDUSTRY_PARTIAL) {
        throw new PromptTemplateError(
          `${from}: partial "${INDUSTRY_PARTIAL}" is reserved; use template "industries/<industry>"`,
        );
      }
      partials.set(name, source);
    }
    for (const [name, helper] of Object.entries(plugin.helpers ?? {})) {
      if (typeof helper !== "function") {
        throw new PromptTemplateError(`${from}: helper "${name}" is not a function`);
      }
      // Replacing `if` or `each` would change what the layout and the hard rules print.
      if (Object.hasOwn(env.helpers, name)) {
        throw new PromptTemplateError(`${from}: helper "${name}" is built into Handlebars`);
      }
      helpers.set(name, helper);
    }
  });

  for (const [name, helper] of helpers) env.registerHelper(name, helper);
  for (const [name, source] of partials) {
    env.registerPartial(name, compile(env, asBlock(source), `partial "${name}"`));
  }
  const layout = compile(env, base, "template base");
  const industryTemplates = new Map<string, Template>();
  for (const [name, source] of industries) {
    industryTemplates.set(name, compile(env, asBlock(source), `template industries/${name}`));
  }
  const fallback = industryTemplates.get(FALLBACK_INDUSTRY);
  if (fallback === undefined) {
    throw new PromptTemplateError(`no industries/${FALLBACK_INDUSTRY} template in ${dir}`);
  }

  return {
    industries: new Set(industryTemplates.keys()),
    render(industry, data) {
      const template = industryTemplates.get(industry) ?? fallback;
      // Passed per call rather than registered, so one set of templates serves every site.
      return layout(data, { partials: { [INDUSTRY_PARTIAL]: template } });
    },
  };
}

/**
 * The personality prompt of `site` at `now`. `templates` defaults to the built-in ones, loaded on
 * first use. A plugin helper that throws makes this throw.
 */
export function buildPersonalityPrompt(
  site: SiteConfig,
  options: { now: Date; templates?: PromptTemplates },
): string {
  const templates = options.templates ?? (defaultTemplates ??= loadPromptTemplates());
  const data = promptData(site, options.now);
  if (!templates.industries.has(data.industry)) data.industry = FALLBACK_INDUSTRY;
  return tidy(templates.render(data.industry, data));
}

/** The data the templates see for `site` at `now`. */
export function promptData(site: SiteConfig, now: Date): PromptData {
  const time = formatLocalTime(now, site.timezone);
  const fields = site.lead_capture?.fields ?? [];
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
  };
}

/**
 * The wall-clock time at the business, from `now` and the site's time zone (never the server's),
 * such as `{text: "Saturday, 21 November 2026, 14:05", timezone: "Europe/Copenhagen"}`. A zone
 * this Node does not know (the schema checks only its shape) gives the time in UTC, labelled so,
 * rather than no conversation at all.
 */
export function formatLocalTime(now: Date, timezone: string): { text: string; timezone: string } {
  let format: Intl.DateTimeFormat;
  try {
    format = dateTimeFormat(timezone);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return formatLocalTime(now, "UTC");
  }
  const parts = Object.fromEntries(format.formatToParts(now).map((p) => [p.type, p.value]));
  return {
    text: `${parts.weekday}, ${parts.day} ${parts.month} ${parts.year}, ${parts.hour}:${parts.minute}`,
    // The site's own spelling, which its owner recognises (ICU may prefer another alias).
    timezone,
  };
}

/** A formatter per time zone (costly to make), the most recently used ones kept. */
const formats = new LRUCache<string, Intl.DateTimeFormat>({ max: 1000 });

function dateTimeFormat(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      weekday: "long",
      day: "numeric",
      month: "long",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    formats.set(timeZone, format);
  }
  return format;
}

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

/**
 * A partial on a line of its own replaces that line, line break included; one whose file has no
 * final line break would run into the next line of the layout.
 */
function asBlock(source: string): string {
  return source.endsWith("\n") ? source : `${source}\n`;
}

function compile(env: typeof Handlebars, source: string, what: string): Template {
  try {
    // Parsing now: `compile` is lazy and would report a syntax error only when first rendered.
    env.parse(source);
  } catch (error) {
    throw new PromptTemplateError(`${what} does not parse: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return env.compile<PromptData>(source, COMPILE_OPTIONS);
}

function readTemplateFiles(dir: string): TemplateFiles {
  let files = filesCache.get(dir);
  if (files === undefined) {
    files = {
      base: readFileSync(join(dir, "base.hbs"), "utf8"),
      partials: readFolder(join(dir, "partials")),
      industries: readFolder(join(dir, "industries")),
    };
    filesCache.set(dir, files);
  }
  return files;
}

/** The `.hbs` files of `dir` by name without the extension; a missing folder has none. */
function readFolder(dir: string): Map<string, string> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Map();
    throw error;
  }
  return new Map(
    names
      .filter((name) => name.endsWith(".hbs"))
      .sort()
      .map((name) => [name.slice(0, -".hbs".length), readFileSync(join(dir, name), "utf8")]),
  );
}
