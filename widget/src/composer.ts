/**
 * The panel's text box: what the visitor types goes into the conversation on Enter or Send. In a
 * call it is a message the agent answers aloud; without one it starts a text conversation.
 */
import { element } from "./dom.ts";
import type { Strings } from "./strings.ts";

/** The characters a typed message may have (a turn of the transcript holds far more). */
const MAX_MESSAGE_CHARS = 1000;

export class Composer {
  readonly form = element("form", { class: "composer" });
  readonly input: HTMLInputElement;

  constructor(text: Strings, send: (message: string) => void) {
    const id = "sitevoice-message";
    const label = element("label", { class: "visually-hidden", for: id }, text.message);
    this.input = element("input", {
      id,
      type: "text",
      autocomplete: "off",
      maxlength: String(MAX_MESSAGE_CHARS),
      placeholder: text.message,
    });
    const submit = element("button", { class: "primary", type: "submit" }, text.send);
    this.form.append(label, this.input, submit);
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const message = this.input.value.trim();
      if (message === "") return;
      this.input.value = "";
      send(message);
    });
  }
}
