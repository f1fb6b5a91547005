/**
 * What the visitor sees: a launcher button in the corner the site chose, in its colour and size,
 * and a small panel with the privacy notice, the call's state (announced to screen readers) and a
 * hang-up button. The notice shows the visitor's ID (their fingerprint), which they quote to ask
 * the business for their data; a Privacy button shows it again, read-only, to a visitor who
 * accepted it earlier. Everything lives in a shadow root, so the page's CSS and the widget's never
 * touch. Buttons are real buttons (keyboard and screen readers work as on any page); Escape closes
 * the panel and gives focus back to the launcher. Its words are the site's (strings.ts), in the
 * site's language and direction.
 */
import { directionOf, siteStrings, type StringKey, type Strings } from "./strings.ts";
import { WIDGET_CSS } from "./styles.ts";
import type { WidgetConfig } from "./types.ts";

export type UiState = "idle" | "connecting" | "listening" | "speaking" | "error" | "ended";

export interface UiHandlers {
  /** The launcher was pressed while no call is on. */
  start(): void;
  hangUp(): void;
  /** The visitor's ID, as the service computes it for this browser. */
  visitorId(): Promise<string>;
}

const SIZES = { small: 48, medium: 56, large: 64 } as const;
const MIC_ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 14a3 3 0 0 0 3-3V5a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3zm5-3a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.92V21h2v-3.08A7 7 0 0 0 19 11z"/></svg>';
const STATUS: Record<Exclude<UiState, "idle">, StringKey> = {
  connecting: "connecting",
  listening: "listening",
  speaking: "speaking",
  error: "error",
  ended: "ended",
};

export class WidgetUi {
  readonly host = document.createElement("sitevoice-widget");
  private readonly root: ShadowRoot;
  private readonly launcher: HTMLButtonElement;
  private readonly panel: HTMLElement;
  private readonly status: HTMLElement;
  private readonly notice: HTMLElement;
  private readonly callActions: HTMLElement;
  private readonly privacy: HTMLElement;
  private readonly text: Strings;
  private state: UiState = "idle";
  private answerNotice: ((accepted: boolean) => void) | undefined;
  private visitor: Promise<string> | undefined;

  constructor(
    private readonly config: WidgetConfig,
    private readonly handlers: UiHandlers,
  ) {
    this.root = this.host.attachShadow({ mode: "open" });
    adoptStyles(this.root);
    const { appearance } = config;
    const text = (this.text = siteStrings(config.strings, config.business_name));
    const side = appearance.position === "bottom-left" ? "left" : "right";
    const wrapper = element("div", {
      class: `root ${side}`,
      lang: config.language,
      dir: directionOf(config.language),
    });
    wrapper.style.setProperty("--accent", appearance.color);
    wrapper.style.setProperty("--on-accent", readableOn(appearance.color));
    wrapper.style.setProperty("--size", `${SIZES[appearance.size] ?? SIZES.medium}px`);
    wrapper.style.setProperty("position", "relative");

    const titleId = "sitevoice-title";
    this.panel = element("div", { class: "panel", role: "dialog", "aria-labelledby": titleId });
    this.panel.hidden = true;
    const head = element("div", { class: "head" });
    head.append(element("span", { id: titleId }, config.business_name));
    const close = element(
      "button",
      { class: "close", type: "button", "aria-label": text.close },
      "×",
    );
    close.addEventListener("click", () => this.closePanel());
    head.append(close);
    this.status = element("p", { class: "status", role: "status", "aria-live": "polite" });
    this.notice = element("div", { class: "notice" });
    this.callActions = element("div", { class: "actions" });
    const hangUp = element("button", { class: "hangup", type: "button" }, text.end_call);
    hangUp.addEventListener("click", () => this.handlers.hangUp());
    this.callActions.append(hangUp);
    this.privacy = element("button", { class: "privacy", type: "button" }, text.privacy);
    this.privacy.addEventListener("click", () => this.showPrivacy());
    this.panel.append(head, this.status, this.notice, this.callActions, this.privacy);
    this.panel.addEventListener("keydown", (event) => {
      if (event.key === "Escape") this.closePanel();
    });

    this.launcher = element("button", {
      class: "launcher",
      type: "button",
      "aria-label": text.launcher,
      "aria-expanded": "false",
    }) as HTMLButtonElement;
    this.launcher.innerHTML = MIC_ICON;
    this.launcher.addEventListener("click", () => this.pressLauncher());
    wrapper.append(this.panel, this.launcher);
    this.root.append(wrapper);
    this.show("idle");
  }

  mount(): void {
    const { style } = this.host;
    const side = this.config.appearance.position === "bottom-left" ? "left" : "right";
    style.setProperty("position", "fixed", "important");
    style.setProperty("bottom", "20px", "important");
    style.setProperty(side, "20px", "important");
    style.setProperty("z-index", "2147483000", "important");
    document.body.append(this.host);
  }

  /** Shows a state, with a message of its own for errors and ends. */
  show(state: UiState, message?: StringKey): void {
    this.state = state;
    this.status.className = `status ${state}`;
    const words = state === "idle" ? "" : this.text[message ?? STATUS[state]];
    this.status.replaceChildren(element("span", { class: "dot" }), words);
    this.status.hidden = state === "idle";
    this.callActions.hidden = !inCall(state);
    if (state !== "idle") this.openPanel();
    else if (this.answerNotice === undefined && !this.panel.hidden) this.closePanel();
  }

  /** The privacy notice; resolves true when the visitor starts, false when they decline. */
  askNotice(): Promise<boolean> {
    const accept = element("button", { class: "primary", type: "button" }, this.text.start);
    const decline = element("button", { class: "secondary", type: "button" }, this.text.not_now);
    this.fillNotice(accept, decline);
    accept.focus();
    return new Promise((resolve) => {
      this.answerNotice = resolve;
      accept.addEventListener("click", () => this.settleNotice(true));
      decline.addEventListener("click", () => this.settleNotice(false));
    });
  }

  /** The notice again, read-only: a visitor who accepted it earlier can still find their ID. */
  private showPrivacy(): void {
    const close = element("button", { class: "secondary", type: "button" }, this.text.close);
    close.addEventListener("click", () => {
      this.clearNotice();
      this.privacy.focus();
    });
    this.fillNotice(close);
    close.focus();
  }

  /** The notice's text, the visitor's ID when the service gives it, and `buttons`. */
  private fillNotice(...buttons: HTMLElement[]): void {
    const actions = element("div", { class: "actions" });
    actions.append(...buttons);
    this.notice.replaceChildren(element("p", {}, this.text.notice), this.visitorLine(), actions);
    this.notice.hidden = false;
    this.privacy.hidden = true;
    this.openPanel();
  }

  /** Hidden until the service answers; when it cannot, the notice goes on without it. */
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
    this.visitor ??= this.handlers.visitorId().catch((error: unknown) => {
      this.visitor = undefined;
      throw error;
    });
    return this.visitor;
  }

  private clearNotice(): void {
    this.notice.hidden = true;
    this.notice.replaceChildren();
    this.privacy.hidden = false;
  }

  private settleNotice(accepted: boolean): void {
    this.clearNotice();
    const answer = this.answerNotice;
    this.answerNotice = undefined;
    if (!accepted) this.closePanel();
    answer?.(accepted);
  }

  private pressLauncher(): void {
    if (inCall(this.state) || this.answerNotice !== undefined) {
      if (this.panel.hidden) this.openPanel();
      else this.closePanel();
      return;
    }
    this.handlers.start();
  }

  private openPanel(): void {
    this.panel.hidden = false;
    this.launcher.setAttribute("aria-expanded", "true");
  }

  private closePanel(): void {
    if (this.answerNotice !== undefined) {
      this.settleNotice(false);
      return;
    }
    // The read-only notice goes with the panel: reopened, it shows the call's state.
    this.clearNotice();
    this.panel.hidden = true;
    this.launcher.setAttribute("aria-expanded", "false");
    this.launcher.focus();
  }
}

const inCall = (state: UiState) =>
  state === "connecting" || state === "listening" || state === "speaking";

function adoptStyles(root: ShadowRoot): void {
  if ("adoptedStyleSheets" in root && typeof CSSStyleSheet.prototype.replaceSync === "function") {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(WIDGET_CSS);
    root.adoptedStyleSheets = [sheet];
  } else {
    root.append(element("style", {}, WIDGET_CSS));
  }
}

function element(tag: string, attributes: Record<string, string>, text?: string): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Black or white, whichever reads better on the site's colour (WCAG relative luminance). */
export function readableOn(hex: string): string {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return luminance > 0.179 ? "#111827" : "#ffffff";
}
