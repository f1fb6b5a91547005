/**
 * The privacy notice: asked before the first conversation on a site (start talking, type
 * instead, or not now), and shown again, read-only, from the Privacy button. It shows the
 * visitor's ID (their fingerprint), which they quote to ask the business for their data; while the
 * service has not answered it is left out, and the notice goes on without it.
 */
import { button, element } from "./dom.ts";
import type { Strings } from "./strings.ts";
import type { Mode } from "./types.ts";

export class Notice {
  readonly box = element("div", { class: "notice" });
  private answer: ((mode: Mode | undefined) => void) | undefined;
  private visitor: Promise<string> | undefined;

  /** `changed` is told when the notice appears or goes, for the panel to show what fits. */
  constructor(
    private readonly text: Strings,
    private readonly visitorIdOf: () => Promise<string>,
    private readonly changed: () => void,
  ) {
    this.box.hidden = true;
  }

  /** Resolves with the way the visitor chose to start, or undefined when they decline. */
  ask(): Promise<Mode | undefined> {
    this.fill(
      button("primary", this.text.start, () => this.settle("voice")),
      button("secondary typing", this.text.type_instead, () => this.settle("text")),
      button("secondary decline", this.text.not_now, () => this.settle(undefined)),
    );
    return new Promise((resolve) => (this.answer = resolve));
  }

  /** The notice again, read-only; Close gives focus back to `from`. */
  showPrivacy(from: HTMLElement): void {
    this.fill(
      button("secondary", this.text.close, () => {
        this.clear();
        from.focus();
      }),
    );
    this.focus();
  }

  pending(): boolean {
    return this.answer !== undefined;
  }

  decline(): void {
    this.settle(undefined);
  }

  /** Focus on the notice's first button. */
  focus(): void {
    this.box.querySelector("button")?.focus();
  }

  clear(): void {
    if (this.box.hidden) return;
    this.box.hidden = true;
    this.box.replaceChildren();
    this.changed();
  }

  private settle(mode: Mode | undefined): void {
    const answer = this.answer;
    this.answer = undefined;
    this.clear();
    answer?.(mode);
  }

  /** The notice's text, the visitor's ID when the service gives it, and `buttons`. */
  private fill(...buttons: HTMLElement[]): void {
    const actions = element("div", { class: "actions" });
    actions.append(...buttons);
    this.box.replaceChildren(element("p", {}, this.text.notice), this.visitorLine(), actions);
    this.box.hidden = false;
    this.changed();
  }

  private visitorLine(): HTMLElement {
    const line = element("p", { class: "visitor" });
    line.hidden = true;
    this.visitorId().then(
      (id) => {
        // The schema keeps `{id}` in a site's own wording.
        const [before = "", after = ""] = this.text.visitor_id.split("{id}");
        line.append(before, element("code", {}, id), after);
        line.hidden = false;
      },
      () => undefined,
    );
    return line;
  }

  /** Asked once per page view (the endpoint's limit expects no more); a failure is asked again. */
  private visitorId(): Promise<string> {
    this.visitor ??= this.visitorIdOf().catch((error: unknown) => {
      this.visitor = undefined;
      throw error;
    });
    return this.visitor;
  }
}
