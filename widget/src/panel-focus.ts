/**
 * Where focus goes while the panel is open. Tab and Shift+Tab stay inside it (past its last
 * control to its first, and back); Escape closes it. And when the control that had focus goes
 * away under it (a notice button answered, End call pressed, the callback form sent), focus
 * moves to the panel itself: left alone, it would fall to the page's body, and the next Tab
 * would start again from the top of the page.
 */
import { focusable } from "./dom.ts";

export class PanelFocus {
  /** The control in the panel that last had focus, until the visitor moves focus elsewhere. */
  private holder: Element | undefined;

  constructor(
    private readonly panel: HTMLElement,
    private readonly root: ShadowRoot,
    escape: () => void,
  ) {
    // Focusable by script only: the dialog itself, for when its focused control went.
    panel.tabIndex = -1;
    panel.addEventListener("keydown", (event) => {
      if (event.key === "Escape") escape();
      else if (event.key === "Tab") this.tab(event);
    });
    panel.addEventListener("focusin", (event) => (this.holder = event.target as Element));
    panel.addEventListener("focusout", (event) => {
      // Focus taken out of the panel by the visitor, not lost with its control.
      const to = event.relatedTarget as Node | null;
      if (!gone(event.target as Element) && !panel.contains(to)) this.holder = undefined;
    });
  }

  /** After the panel changed: if the focused control was removed or hidden, focus the panel. */
  keep(): void {
    const holder = this.holder;
    if (holder === undefined || this.panel.hidden || !gone(holder)) return;
    const active = this.root.activeElement;
    if (active === null || active === holder) this.panel.focus();
  }

  private tab(event: KeyboardEvent): void {
    const controls = focusable(this.panel);
    const first = controls[0];
    const last = controls[controls.length - 1];
    const current = this.root.activeElement as HTMLElement | null;
    // From the panel itself (or the status line) Shift+Tab would leave it: it goes to the last.
    const atStart = current === first || (current !== null && !controls.includes(current));
    if (event.shiftKey && atStart) {
      event.preventDefault();
      last?.focus();
    } else if (!event.shiftKey && current === last) {
      event.preventDefault();
      first?.focus();
    }
  }
}

/** Removed from the panel, or inside a hidden part of it. */
const gone = (node: Element) => !node.isConnected || node.closest("[hidden]") !== null;
