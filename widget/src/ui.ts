/**
 * What the visitor sees: a launcher button in the corner the site chose, in its colour and size,
 * and a panel with the privacy notice, the conversation's state (announced to screen readers),
 * the captions, a text box, the call's buttons (mute, end), "Talk to a person" and "Privacy". The
 * notice shows the visitor's ID (their fingerprint), which they quote to ask the business for
 * their data. Everything lives in a shadow root, so the page's CSS and the widget's never touch.
 *
 * Keyboard: every control is a real button or field in reading order; while the panel is open,
 * Tab stays inside it; Escape closes it and gives focus back to the launcher. Its words are the
 * site's (strings.ts), in the site's language and direction.
 */
import { CallbackForm, type CallbackFields } from "./callback-form.ts";
import { Captions } from "./captions.ts";
import { Composer } from "./composer.ts";
import { button, element, focusable, readableOn } from "./dom.ts";
import { Notice } from "./notice.ts";
import { PanelFocus } from "./panel-focus.ts";
import { directionOf, siteStrings, type StringKey, type Strings } from "./strings.ts";
import { adoptStyles } from "./styles.ts";
import type { Mode, Turn, WidgetConfig } from "./types.ts";

export type UiState =
  "idle" | "connecting" | "listening" | "speaking" | "ready" | "writing" | "error" | "ended";

export interface UiHandlers {
  /** The launcher was pressed while no conversation is on. */
  start(): void;
  /** "Start talking" in the panel: a voice call, or the text conversation goes on aloud. */
  talk(): void;
  hangUp(): void;
  /** What the visitor typed. */
  type(message: string): void;
  mute(muted: boolean): void;
  /** A callback request from the form; resolves true once recorded. */
  callback(fields: CallbackFields): Promise<boolean>;
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
  ready: "typing_ready",
  writing: "writing",
  error: "error",
  ended: "ended",
};

export class WidgetUi {
  readonly host = document.createElement("sitevoice-widget");
  readonly text: Strings;
  readonly captions: Captions;
  private readonly root: ShadowRoot;
  private readonly launcher: HTMLButtonElement;
  private readonly panel: HTMLElement;
  private readonly status: HTMLElement;
  private readonly notice: Notice;
  private readonly composer: Composer;
  private readonly callbackForm: CallbackForm;
  private readonly callActions: HTMLElement;
  private readonly talkButton: HTMLButtonElement;
  private readonly muteButton: HTMLButtonElement;
  private readonly endButton: HTMLButtonElement;
  private readonly person: HTMLButtonElement;
  private readonly privacy: HTMLButtonElement;
  private readonly focus: PanelFocus;
  private state: UiState = "idle";
  private mode: Mode = "voice";
  private muted = false;
  private message: StringKey | undefined;

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
    const close = button("close", "×", () => this.closePanel());
    close.setAttribute("aria-label", text.close);
    head.append(close);
    // Focusable by script: it takes focus to say a callback request was sent.
    this.status = element("p", {
      class: "status",
      role: "status",
      "aria-live": "polite",
      tabindex: "-1",
    });
    this.notice = new Notice(text, handlers.visitorId, () => this.render());
    this.captions = new Captions(text, config.site_id);
    this.callbackForm = new CallbackForm(
      text,
      (fields) => this.sendCallback(fields),
      () => this.closeCallback(),
    );
    this.composer = new Composer(text, (message) => handlers.type(message));
    this.talkButton = button("secondary talk", text.start, () => handlers.talk());
    this.muteButton = button("secondary", text.mute, () => this.toggleMute());
    this.endButton = button("hangup", text.end_call, () => handlers.hangUp());
    this.callActions = element("div", { class: "actions" });
    this.callActions.append(this.talkButton, this.muteButton, this.endButton);
    const foot = element("div", { class: "foot" });
    this.person = button("link person", text.person, () => this.openCallback());
    this.privacy = button("link privacy", text.privacy, () => {
      this.notice.showPrivacy(this.privacy);
    });
    foot.append(this.person, this.privacy);
    this.panel.append(
      head,
      this.status,
      this.notice.box,
      this.captions.toggle,
      this.captions.log,
      this.callbackForm.form,
      this.composer.form,
      this.callActions,
      foot,
    );
    this.focus = new PanelFocus(this.panel, this.root, () => this.closePanel());

    this.launcher = element("button", {
      class: "launcher",
      type: "button",
      "aria-label": text.launcher,
      "aria-expanded": "false",
    });
    this.launcher.innerHTML = MIC_ICON;
    this.launcher.addEventListener("click", () => this.pressLauncher());
    wrapper.append(this.panel, this.launcher);
    this.root.append(wrapper);
    this.render();
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

  /** Shows a state, with a message of its own for errors and ends; `mode` when it changes. */
  show(state: UiState, message?: StringKey, mode: Mode = this.mode): void {
    this.state = state;
    this.mode = mode;
    this.message = message;
    if (!inConversation(state)) this.muted = false;
    if (state === "connecting" || state === "ready") this.captions.activate(true, mode);
    if (state !== "idle") this.openPanel();
    else if (!this.notice.pending() && !this.panel.hidden) this.closePanel();
    this.render();
  }

  /** Voice cannot work here: the reason is shown, and the text box takes focus. */
  offerTyping(reason: StringKey): void {
    this.show("error", reason);
    this.composer.input.focus();
  }

  /** The privacy notice; resolves with the mode the visitor chose, or undefined if they declined. */
  async askNotice(): Promise<Mode | undefined> {
    const answer = this.notice.ask();
    this.openPanel();
    this.render();
    this.notice.focus();
    const mode = await answer;
    if (mode === undefined) this.closePanel();
    this.render();
    return mode;
  }

  /** A line of the conversation in the captions. */
  caption(turn: Turn): void {
    this.captions.add(turn);
  }

  /** A text conversation waits for the visitor's first message. */
  focusComposer(): void {
    this.composer.input.focus();
  }

  private render(): void {
    const words =
      this.state === "idle"
        ? ""
        : this.text[this.muted ? "muted" : (this.message ?? this.stateWords())];
    this.status.className = `status ${this.state}`;
    this.status.replaceChildren(element("span", { class: "dot" }), words);
    this.status.hidden = this.state === "idle";
    const asking = this.notice.pending();
    const form = !this.callbackForm.form.hidden;
    const talking = inConversation(this.state) && this.state !== "connecting";
    const voice = this.mode === "voice";
    // Talking is offered whenever no call is on; a text conversation then goes on aloud.
    this.talkButton.hidden = this.state === "connecting" || (voice && inConversation(this.state));
    this.muteButton.hidden = !voice || !talking;
    this.endButton.hidden = !inConversation(this.state);
    this.callActions.hidden = asking || form;
    this.muteButton.setAttribute("aria-pressed", String(this.muted));
    this.endButton.textContent = this.mode === "voice" ? this.text.end_call : this.text.end_chat;
    this.composer.form.hidden = asking || form;
    this.person.hidden = asking || form || !this.config.callback;
    // The notice shown (asked or read again) has the Privacy button's words already.
    this.privacy.hidden = !this.notice.box.hidden;
    this.focus.keep();
  }

  private stateWords(): StringKey {
    if (this.state === "ended" && this.mode === "text") return "chat_ended";
    return STATUS[this.state as Exclude<UiState, "idle">];
  }

  private toggleMute(): void {
    this.muted = !this.muted;
    this.handlers.mute(this.muted);
    this.render();
  }

  private openCallback(): void {
    this.callbackForm.open();
    this.render();
  }

  private closeCallback(): void {
    this.callbackForm.close();
    this.render();
    this.person.focus();
  }

  private async sendCallback(fields: CallbackFields): Promise<boolean> {
    if (!(await this.handlers.callback(fields))) return false;
    this.callbackForm.close();
    this.show(inConversation(this.state) ? this.state : "ended", "callback_sent");
    this.status.focus();
    return true;
  }

  private pressLauncher(): void {
    if (!inConversation(this.state) && !this.notice.pending()) this.handlers.start();
    else if (this.panel.hidden) this.openPanel();
    else this.closePanel();
  }

  private openPanel(): void {
    const wasHidden = this.panel.hidden;
    this.panel.hidden = false;
    this.launcher.setAttribute("aria-expanded", "true");
    // Opened from the launcher, the panel takes focus; opened by a resumed call, it does not.
    if (wasHidden && this.root.activeElement === this.launcher) {
      requestAnimationFrame(() => {
        if (this.root.activeElement === this.launcher || this.root.activeElement === null) {
          (this.state === "ready" ? this.composer.input : focusable(this.panel)[0])?.focus();
        }
      });
    }
  }

  private closePanel(): void {
    if (this.notice.pending()) {
      this.notice.decline();
      return;
    }
    this.notice.clear();
    this.callbackForm.close();
    this.panel.hidden = true;
    this.launcher.setAttribute("aria-expanded", "false");
    this.launcher.focus();
    this.render();
  }
}

/** The states of a conversation that is on (or connecting), in either mode. */
const CONVERSING = new Set<UiState>(["connecting", "listening", "speaking", "ready", "writing"]);
const inConversation = (state: UiState) => CONVERSING.has(state);
