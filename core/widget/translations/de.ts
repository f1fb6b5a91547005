import type { Strings } from "../../../widget/src/strings.ts";

export const de: Partial<Strings> = {
  launcher: "Mit dem Sprachassistenten von {business} sprechen",
  close: "Schließen",
  privacy: "Datenschutz",
  notice:
    "Was Sie dem Assistenten von {business} sagen oder schreiben, wird vom Unternehmen und " +
    "seinem KI-Anbieter verarbeitet, um Ihnen zu antworten; Gesprochenes wird transkribiert, " +
    "Audio wird nicht aufgezeichnet. Zum Sprechen brauchen Sie Ihr Mikrofon.",
  visitor_id:
    "Ihre Besucher-ID: {id} – nennen Sie sie, um von diesem Unternehmen eine Kopie Ihrer Daten " +
    "oder deren Löschung zu verlangen.",
  start: "Gespräch starten",
  not_now: "Nicht jetzt",
  end_call: "Gespräch beenden",
  connecting: "Verbindung wird hergestellt…",
  reconnecting: "Verbindung wird wiederhergestellt…",
  listening: "Ich höre zu. Sprechen Sie einfach.",
  speaking: "Spricht…",
  ended: "Gespräch beendet.",
  error: "Etwas ist schiefgelaufen.",
  microphone_refused:
    "Ihr Browser hat das Mikrofon nicht erlaubt. Erlauben Sie es für diese Website (das Symbol " +
    "in der Adressleiste), um zu sprechen, oder schreiben Sie Ihre Frage.",
  no_microphone: "Es wurde kein Mikrofon gefunden. Sie können Ihre Frage stattdessen schreiben.",
  insecure:
    "Zum Sprechen ist eine sichere Seite (https) nötig. Sie können Ihre Frage stattdessen " +
    "schreiben.",
  voice_failed:
    "Die Sprachverbindung konnte nicht hergestellt werden. Sie können Ihre Frage stattdessen " +
    "schreiben.",
  unavailable:
    "Der Assistent ist gerade nicht verfügbar. Bitte versuchen Sie es in ein paar Minuten erneut.",
  busy:
    "Gerade werden zu viele Gespräche gestartet. Bitte versuchen Sie es in einer Minute " +
    "erneut.",
  failed: "Der Assistent war nicht erreichbar. Bitte versuchen Sie es erneut.",
  lost: "Die Verbindung wurde unterbrochen. Bitte versuchen Sie es erneut.",
  captions: "Unterhaltung",
  you: "Sie",
  assistant: "Assistent",
  looked_up: "{what} nachgeschlagen",
  searched_site: "Website nach „{what}“ durchsucht",
  sent_details: "Ihre Angaben weitergegeben",
  hide_captions: "Untertitel ausblenden",
  show_captions: "Untertitel einblenden",
  message: "Nachricht eingeben",
  send: "Senden",
  type_instead: "Stattdessen schreiben",
  typing_ready: "Geben Sie Ihre Nachricht unten ein.",
  writing: "Schreibt…",
  mute: "Stummschalten",
  muted: "Stummgeschaltet. Der Assistent hört Sie nicht.",
  end_chat: "Unterhaltung beenden",
  chat_ended: "Unterhaltung beendet.",
  person: "Mit einem Menschen sprechen",
  callback_intro:
    "Hinterlassen Sie Ihren Namen und eine Telefonnummer oder E-Mail-Adresse, dann meldet sich " +
    "{business} bei Ihnen.",
  name: "Name",
  phone: "Telefon",
  email: "E-Mail",
  reason: "Worum geht es?",
  send_callback: "Rückruf anfordern",
  cancel: "Abbrechen",
  callback_missing:
    "Bitte geben Sie Ihren Namen, eine Telefonnummer oder E-Mail-Adresse und Ihr Anliegen an.",
  callback_sent: "Vielen Dank. {business} meldet sich bei Ihnen.",
  callback_failed: "Ihre Anfrage konnte nicht gesendet werden. Bitte versuchen Sie es erneut.",
};
