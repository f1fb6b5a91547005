/**
 * Every word the panel shows or gives a screen reader, in English, by key: the one table of the
 * widget's strings. English travels in the bundle as the fallback for any key a language lacks;
 * the site's own language (core/widget/translations/) and its `appearance.strings` overrides
 * come with its config, so a page loads one language, not all of them.
 *
 * To add a string: add its key here, the same key to `appearance.strings` in
 * schemas/site.schema.json (a test keeps the two equal), and its translation to every table (a
 * test checks each has every key). To add a language: a table in core/widget/translations/,
 * listed in core/widget/widget-strings.ts. `{business}` is replaced by the site's business name,
 * `{id}` by the visitor's ID, `{what}` by what the agent looked up (a collection, a search's
 * words).
 */
export const ENGLISH = {
  launcher: "Talk to {business}'s voice assistant",
  close: "Close",
  privacy: "Privacy",
  notice:
    "What you say or type to {business}'s assistant is processed by the business and its AI " +
    "provider to answer you; spoken words are transcribed and audio is not recorded. Talking " +
    "needs your microphone.",
  visitor_id:
    "Your visitor ID: {id} — quote it to ask this business for a copy of your data or its " +
    "deletion.",
  start: "Start talking",
  not_now: "Not now",
  end_call: "End call",
  connecting: "Connecting…",
  reconnecting: "Reconnecting…",
  listening: "Listening. Go ahead and speak.",
  speaking: "Speaking…",
  ended: "Call ended.",
  error: "Something went wrong.",
  microphone_refused:
    "Your browser did not allow the microphone. Allow it for this site (the icon in the address " +
    "bar) to talk, or type your question instead.",
  no_microphone: "No microphone was found. You can type your question instead.",
  insecure: "Talking needs a secure (https) page. You can type your question instead.",
  voice_failed: "The voice connection could not be made. You can type your question instead.",
  unavailable: "The assistant is not available right now. Please try again in a few minutes.",
  busy: "Too many conversations are starting right now. Please try again in a minute.",
  failed: "The assistant could not be reached. Please try again.",
  lost: "The connection was lost. Please try again.",
  captions: "Conversation",
  you: "You",
  assistant: "Assistant",
  looked_up: "Looked up {what}",
  searched_site: "Searched the site for \u201c{what}\u201d",
  sent_details: "Passed on your details",
  hide_captions: "Hide captions",
  show_captions: "Show captions",
  message: "Type a message",
  send: "Send",
  type_instead: "Type instead",
  typing_ready: "Type your message below.",
  writing: "Writing…",
  mute: "Mute",
  muted: "Muted. The assistant cannot hear you.",
  end_chat: "End conversation",
  chat_ended: "Conversation ended.",
  person: "Talk to a person",
  callback_intro:
    "Leave your name and a phone number or email address, and {business} will get back to you.",
  name: "Name",
  phone: "Phone",
  email: "Email",
  reason: "What is it about?",
  send_callback: "Ask for a call back",
  cancel: "Cancel",
  callback_missing:
    "Please give your name, a phone number or an email address, and what it is about.",
  callback_sent: "Thank you. {business} will get back to you.",
  callback_failed: "Your request could not be sent. Please try again.",
};

export type StringKey = keyof typeof ENGLISH;
export type Strings = Record<StringKey, string>;

/** Languages written right to left: the panel is laid out mirrored for them. */
const RIGHT_TO_LEFT = /^(ar|he|fa|ur)(-|$)/i;

/** The panel's writing direction for a BCP 47 language tag. */
export const directionOf = (language: string): "rtl" | "ltr" =>
  RIGHT_TO_LEFT.test(language) ? "rtl" : "ltr";

/**
 * The site's strings (its language's, with its overrides, as the config brings them) over
 * English, with `{business}` filled in. Keys the widget does not know are ignored.
 */
export function siteStrings(given: Partial<Strings> | undefined, business: string): Strings {
  const strings = { ...ENGLISH };
  for (const key of Object.keys(ENGLISH) as StringKey[]) {
    strings[key] = (given?.[key] ?? ENGLISH[key]).replaceAll("{business}", business);
  }
  return strings;
}
