/**
 * Which part of a page is its main content, and which elements in it are not content: the
 * site's navigation, header and footer, cookie banners, scripts, hidden elements, form controls
 * and their labels, skip links.
 * The rules look at what an element is (its tag, role, ARIA attributes, and names that say
 * "cookie banner"), never at how long or link-heavy ordinary blocks are, so that short content
 * (opening hours, a phone number) is kept; only an `<aside>` is judged by its links.
 */
import { descendants, type HtmlElement } from "./html-tree.ts";

/** Elements that hold no readable text of the page's. */
const NOT_TEXT = new Set([
  "head",
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "math",
  "iframe",
  "object",
  "embed",
  "canvas",
  "video",
  "audio",
  "map",
  "nav",
  "button",
  "input",
  "select",
  "option",
  "optgroup",
  "datalist",
  "textarea",
  "output",
  "progress",
  "meter",
]);

const LANDMARK_ROLES = new Set(["navigation", "banner", "contentinfo", "search"]);

/** Elements in which a `<header>` or `<footer>` is the part's own, not the site's. */
const SECTIONING = new Set(["article", "aside", "main", "nav", "section"]);

/**
 * Class, id or label of a consent banner: "cookie" or "consent" joined to a word for a banner
 * (`cookie-banner`, `consent_manager`, "Cookie consent"), or a consent manager's own name. A bare
 * `cookies` or `consent` is content's name as often (a bakery's cookies, a consent form).
 */
const CONSENT_NAME = new RegExp(
  [
    "(cookies?|consent|gdpr|privacy)[\\s_-]*(banner|bar|notice|notification|popup|pop-up|modal|dialog|overlay|wall|box|message|alert|prompt|manager|settings|preferences|layer|hint|hinweis|consent|law|warning|container|wrapper)",
    "(banner|bar|notice|popup|modal|dialog|overlay)[\\s_-]*(cookies?|consent|gdpr)",
    "onetrust|cookiebot|usercentrics|didomi|iubenda|cookieyes|cky-consent|klaro|cmplz|borlabs|cookiefirst|termly|axeptio|tarteaucitron|truste|osano|qc-cmp|cc-window|cc-banner",
  ].join("|"),
  "i",
);

const DIALOG_ROLES = new Set(["dialog", "alertdialog", "alert"]);

const HIDDEN_STYLE =
  /(^|;)\s*(display\s*:\s*none|visibility\s*:\s*hidden)\s*(!important\s*)?(;|$)/i;

const dropped = new WeakMap<HtmlElement, boolean>();

/** Whether `element` and all in it are left out of the content. */
export function isBoilerplate(element: HtmlElement): boolean {
  let drop = dropped.get(element);
  if (drop === undefined) {
    drop = judge(element);
    dropped.set(element, drop);
  }
  return drop;
}

function judge(element: HtmlElement): boolean {
  const { name, attributes } = element;
  const role = roleOf(element);
  if (NOT_TEXT.has(name) || LANDMARK_ROLES.has(role) || isHidden(element)) return true;
  if ((name === "header" || name === "footer") && !insideSectioning(element)) return true;
  if (name === "label" && inside(element, (up) => up.name === "form")) return true;
  if (name === "a" && isSkipLink(element)) return true;
  if (name === "aside" && isNavigationAside(element)) return true;
  const names = [attributes["class"], attributes["id"], attributes["aria-label"]];
  if (names.some((value) => value !== undefined && CONSENT_NAME.test(value))) return true;
  return (DIALOG_ROLES.has(role) || name === "dialog") && /cookie/i.test(textOf(element).all);
}

const roleOf = (element: HtmlElement) => element.attributes["role"]?.trim().toLowerCase() ?? "";

function isHidden({ name, attributes }: HtmlElement): boolean {
  return (
    // `hidden="until-found"` is collapsed content that the browser's search opens: content.
    (attributes["hidden"] !== undefined &&
      attributes["hidden"].trim().toLowerCase() !== "until-found") ||
    attributes["aria-hidden"]?.trim().toLowerCase() === "true" ||
    HIDDEN_STYLE.test(attributes["style"] ?? "") ||
    (name === "dialog" && attributes["open"] === undefined)
  );
}

const insideSectioning = (element: HtmlElement) => inside(element, (up) => SECTIONING.has(up.name));

function inside(element: HtmlElement, test: (ancestor: HtmlElement) => boolean): boolean {
  for (let up = element.parent; up !== undefined; up = up.parent) {
    if (test(up)) return true;
  }
  return false;
}

/** A link to the page's own content that keyboard users skip the navigation with. */
const isSkipLink = ({ attributes }: HtmlElement) =>
  attributes["href"]?.startsWith("#") === true && /skip/i.test(attributes["class"] ?? "");

/** A sidebar of links: it holds a navigation, or two thirds of its text are links'. */
function isNavigationAside(aside: HtmlElement): boolean {
  const { all, inLinks, navigation } = textOf(aside);
  const length = nonSpace(all);
  return navigation || (length > 0 && inLinks * 3 >= length * 2);
}

const nonSpace = (text: string) => text.replace(/\s+/g, "").length;

interface TextSummary {
  /** The text of what is kept in the element, as written. */
  all: string;
  /** How many non-space characters of it are inside links. */
  inLinks: number;
  /** Whether a navigation landmark is inside. */
  navigation: boolean;
}

const summaries = new WeakMap<HtmlElement, TextSummary>();

/** What `element` holds, computed once per element (asides nest; each is judged by its text). */
function textOf(element: HtmlElement): TextSummary {
  const known = summaries.get(element);
  if (known !== undefined) return known;
  const summary: TextSummary = { all: "", inLinks: 0, navigation: false };
  const link = element.name === "a";
  for (const child of element.children) {
    if (typeof child === "string") {
      summary.all += child;
      if (link) summary.inLinks += nonSpace(child);
      continue;
    }
    const isNavigation = child.name === "nav" || roleOf(child) === "navigation";
    summary.navigation ||= isNavigation;
    if (isNavigation || isBoilerplate(child)) continue;
    const inner = textOf(child);
    summary.all += inner.all;
    summary.inLinks += link ? nonSpace(inner.all) : inner.inLinks;
    summary.navigation ||= inner.navigation;
  }
  summaries.set(element, summary);
  return summary;
}

/**
 * The page's main content: its first `<main>` (or `role="main"`) outside boilerplate, else the
 * whole document, whose boilerplate the section writer leaves out.
 */
export function mainContent(root: HtmlElement): HtmlElement {
  for (const element of descendants(root, isBoilerplate)) {
    if (element.name === "main" || element.attributes["role"]?.trim().toLowerCase() === "main") {
      return element;
    }
  }
  return root;
}
