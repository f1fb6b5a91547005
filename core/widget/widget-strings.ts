/**
 * The strings a site's widget shows beyond the English its bundle carries: its language's table
 * and its own `appearance.strings` over it. They travel in the site's config answer, so each page
 * loads one language; bundling all of them would cost the widget's 20 KB budget several KB for
 * languages a page never shows.
 */
import type { Strings } from "../../widget/src/strings.ts";
import { ar } from "./translations/ar.ts";
import { de } from "./translations/de.ts";
import { es } from "./translations/es.ts";
import { fr } from "./translations/fr.ts";
import { it } from "./translations/it.ts";
import { nl } from "./translations/nl.ts";
import { pl } from "./translations/pl.ts";
import { pt } from "./translations/pt.ts";
import { sv } from "./translations/sv.ts";

/** By primary language subtag: a regional tag (`de-CH`, `pt-BR`) takes its language's table. */
const TRANSLATIONS: Record<string, Partial<Strings>> = { ar, de, es, fr, it, nl, pl, pt, sv };

/**
 * For a site of `language`: its language's strings (none for English or an unknown language),
 * with the site's overrides winning.
 */
export function widgetStrings(
  language: string,
  overrides: Partial<Strings> | undefined,
): Partial<Strings> {
  const primary = language.split("-")[0]!.toLowerCase();
  return { ...(Object.hasOwn(TRANSLATIONS, primary) ? TRANSLATIONS[primary] : {}), ...overrides };
}
