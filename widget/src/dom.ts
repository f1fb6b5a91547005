/** The few DOM helpers the panel's parts share. */

/** An element with its attributes and, when given, its text. */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A `type="button"` button with its words and what a press does. */
export function button(className: string, text: string, press: () => void): HTMLButtonElement {
  const node = element("button", { class: className, type: "button" }, text);
  node.addEventListener("click", press);
  return node;
}

/** The elements Tab reaches inside `root`, in order, skipping hidden ones. */
export function focusable(root: HTMLElement): HTMLElement[] {
  const all = root.querySelectorAll<HTMLElement>(
    'button, input, textarea, [tabindex]:not([tabindex="-1"])',
  );
  return Array.from(all).filter(
    (node) => !node.closest("[hidden]") && !node.hasAttribute("disabled"),
  );
}

/**
 * Black or white, whichever contrasts more with the site's colour (WCAG relative luminance): at
 * least 4.58:1 for any colour, so the launcher's icon and the primary button's words stay legible.
 */
export function readableOn(hex: string): string {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  // Where (L + 0.05) / 0.05 equals 1.05 / (L + 0.05).
  return luminance > 0.1791 ? "#000000" : "#ffffff";
}
