/**
 * The templates of the personality prompt: the files of `templates/` (the `base.hbs` layout,
 * `partials/*.hbs`, one `industries/<industry>.hbs` per industry), read once and compiled with
 * Handlebars, with what prompt-template plugins add laid over them.
 *
 * Escaping. The prompt is plain text for a voice model, not HTML, so Handlebars' HTML escaping
 * would only corrupt it ("Luigi's" would reach the model as "Luigi&#x27;s"); templates are
 * therefore compiled with `noEscape: true`. That is safe because site text only ever enters as
 * data: it is never concatenated into template source, and Handlebars never parses a value it
 * prints, so a business name such as `{{> industry}}` comes out literally and expands nothing.
 * Which industry template is used is decided here from a Map (not by a dynamic partial, not by
 * property lookup on an object), so an industry key cannot reach other partials or `__proto__`.
 * What escaping remains is about the text's shape, and is done on the data (prompt.ts).
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";
import type { PromptTemplateSource } from "../host/plugin.ts";

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
 * What every template sees. Built from the SiteConfig by `promptData` (prompt.ts); lists are
 * arrays of plain objects so that templates iterate them with `{{#each}}` without touching the
 * site's own maps.
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
  /** Whether the session offers search_site: the site's pages were indexed and hold passages. */
  knowledge: boolean;
  /** Whether the visitor types and reads the answers (a text session) rather than speaking. */
  text_mode: boolean;
  /**
   * Pages of the site's latest crawl (prompt.ts picks and caps them): the title (empty when the
   * page has none), the path and query, the description (empty when none). Empty without a crawl.
   */
  pages: { title: string; path: string; description: string }[];
  /** How many crawled pages the list leaves out (over the cap or the character budget). */
  pages_more: number;
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
/**
 * Loads the templates of `dir` (synchronously; meant for start-up) and lays the plugins' over them,
 * in order, so a later plugin wins over an earlier one and every plugin over the files:
 *
 * - `templates.base` replaces the layout; `templates["industries/<name>"]` adds or replaces the
 *   template of industry `<name>`. Any other template name is refused.
 * - `partials.<name>` adds or replaces `{{> <name>}}` (the built-in ones are the files of
 *   `partials/`: tools, pages, pronunciations, hard-rules). `industry` is reserved for the site's
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
