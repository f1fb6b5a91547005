/**
 * The conversation as it happens: the visitor's and the assistant's words, line by line, in a
 * scrollable log a screen reader announces (`role="log"` is polite by default), with what the
 * agent looked up shown for a few seconds ("Looked up menu"). During a voice call the visitor may
 * hide them; the choice is kept with the notice. In a text conversation the log is the
 * conversation itself and is always shown.
 */
import { button, element } from "./dom.ts";
import { choices, choose } from "./storage.ts";
import type { Strings } from "./strings.ts";
import type { Mode, Turn } from "./types.ts";

/** How long a note of what the agent looked up stays. */
const NOTE_MS = 6000;
/** The lines kept in the log; older ones leave it (the transcript keeps them all). */
const MAX_LINES = 200;

export class Captions {
  readonly log: HTMLElement;
  readonly toggle: HTMLButtonElement;
  private mode: Mode = "voice";
  private active = false;

  constructor(
    private readonly text: Strings,
    private readonly siteId: string,
  ) {
    this.log = element("div", {
      class: "captions",
      role: "log",
      "aria-label": text.captions,
      // A region that scrolls takes focus, so a keyboard can scroll it.
      tabindex: "0",
    });
    this.toggle = button("toggle", "", () => {
      choose(this.siteId, { captions_hidden: !this.hidden() });
      this.render();
    });
    this.render();
  }

  /** Shown while a conversation is on, in `mode`. */
  activate(active: boolean, mode: Mode = this.mode): void {
    this.active = active;
    this.mode = mode;
    this.render();
  }

  /** A line of the conversation: what the visitor or the assistant said or typed. */
  add(turn: Turn): void {
    if (turn.text === undefined || turn.role === "function") return;
    const visitor = turn.role === "visitor";
    const line = element("p", { class: `line ${visitor ? "visitor" : "assistant"}` });
    line.append(
      element("span", { class: "who" }, visitor ? this.text.you : this.text.assistant),
      " ",
      turn.text,
    );
    this.append(line);
  }

  /** What the agent did, in a few words, for a few seconds. */
  note(words: string): void {
    const line = element("p", { class: "line note" }, words);
    this.append(line);
    setTimeout(() => {
      line.remove();
      this.render();
    }, NOTE_MS);
  }

  /** A new conversation starts with an empty log. */
  clear(): void {
    this.log.replaceChildren();
    this.render();
  }

  private append(line: HTMLElement): void {
    this.log.append(line);
    while (this.log.childElementCount > MAX_LINES) this.log.firstElementChild?.remove();
    this.log.scrollTop = this.log.scrollHeight;
    this.render();
  }

  private hidden(): boolean {
    return choices(this.siteId).captions_hidden === true;
  }

  private render(): void {
    const voice = this.mode === "voice";
    // Nothing to hide before the first line (a call that never connected has none).
    this.toggle.hidden = !this.active || !voice || this.log.childElementCount === 0;
    this.toggle.textContent = this.hidden() ? this.text.show_captions : this.text.hide_captions;
    this.toggle.setAttribute("aria-expanded", String(!this.hidden()));
    this.log.hidden = !this.active || (voice && this.hidden());
  }
}
