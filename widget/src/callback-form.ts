/**
 * "Talk to a person": a form for a name, a phone number or an email address, and what it is
 * about, sent as the same callback request the agent's request_callback makes (a lead with
 * `source: "callback"` and the conversation so far). Its fields have visible labels; what is
 * missing or failed is said in an alert and the first field to fix takes focus.
 */
import { button, element } from "./dom.ts";
import type { Strings } from "./strings.ts";

export interface CallbackFields {
  name: string;
  phone: string;
  email: string;
  reason: string;
}

/** The bounds of schemas/lead-create.schema.json. */
const MAX_CHARS = { name: 200, phone: 50, email: 320, reason: 200 } as const;
const INPUT_TYPES = { name: "text", phone: "tel", email: "email", reason: "text" } as const;
/** A phone number as the service takes it (lead-create's pattern). */
const PHONE = /^[0-9+()./ -]{5,50}$/;
const AUTOCOMPLETE = { name: "name", phone: "tel", email: "email", reason: "off" } as const;

export class CallbackForm {
  /** The browser's own bubbles are off: the form says what is missing in the site's language. */
  readonly form = element("form", { class: "callback", novalidate: "" });
  private readonly inputs = {} as Record<keyof CallbackFields, HTMLInputElement>;
  private readonly problem = element("p", { class: "problem", role: "alert" });

  /** `send` resolves true when the request was recorded. */
  constructor(
    private readonly text: Strings,
    private readonly send: (fields: CallbackFields) => Promise<boolean>,
    cancel: () => void,
  ) {
    this.form.hidden = true;
    this.form.append(element("p", {}, text.callback_intro));
    for (const name of ["name", "phone", "email", "reason"] as const) {
      const id = `sitevoice-callback-${name}`;
      const input = element("input", {
        id,
        name,
        type: INPUT_TYPES[name],
        autocomplete: AUTOCOMPLETE[name],
        maxlength: String(MAX_CHARS[name]),
      });
      this.inputs[name] = input;
      this.form.append(element("label", { for: id }, text[name]), input);
    }
    const actions = element("div", { class: "actions" });
    actions.append(
      element("button", { class: "primary", type: "submit" }, text.send_callback),
      button("secondary", text.cancel, cancel),
    );
    this.form.append(this.problem, actions);
    this.problem.hidden = true;
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.submit();
    });
  }

  open(): void {
    this.form.hidden = false;
    this.say(undefined);
    this.inputs.name.focus();
  }

  close(): void {
    this.form.hidden = true;
  }

  private async submit(): Promise<void> {
    const fields = {} as CallbackFields;
    for (const [name, input] of Object.entries(this.inputs)) {
      fields[name as keyof CallbackFields] = input.value.replace(/\s+/g, " ").trim();
      input.removeAttribute("aria-invalid");
    }
    const missing = this.missing(fields);
    if (missing !== undefined) {
      for (const input of missing) input.setAttribute("aria-invalid", "true");
      this.say(this.text.callback_missing);
      missing[0]?.focus();
      return;
    }
    if (await this.send(fields)) {
      for (const input of Object.values(this.inputs)) input.value = "";
      return;
    }
    this.say(this.text.callback_failed);
  }

  /** The fields to fill in, or undefined when the request may go. */
  private missing(fields: CallbackFields): HTMLInputElement[] | undefined {
    const empty: HTMLInputElement[] = [];
    if (fields.name === "") empty.push(this.inputs.name);
    if (fields.phone === "" && fields.email === "") empty.push(this.inputs.phone);
    if (fields.phone !== "" && !PHONE.test(fields.phone)) empty.push(this.inputs.phone);
    if (fields.email !== "" && !this.inputs.email.validity.valid) empty.push(this.inputs.email);
    if (fields.reason === "") empty.push(this.inputs.reason);
    return empty.length === 0 ? undefined : empty;
  }

  private say(problem: string | undefined): void {
    this.problem.hidden = problem === undefined;
    this.problem.textContent = problem ?? "";
  }
}
