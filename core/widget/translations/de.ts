import type { Strings } from "../../../widget/src/strings.ts";

export const de: Partial<Strings> = {
  launcher: "Mit dem Sprachassistenten von {business} sprechen",
  close: "Schließen",
  privacy: "Datenschutz",
  notice:
    "Um mit dem Assistenten von {business} zu sprechen, erlauben Sie Ihr Mikrofon. Was Sie " +
    "sagen, wird transkribiert und vom Unternehmen und seinem KI-Anbieter verarbeitet, um Ihnen " +
    "zu antworten; Audio wird nicht aufgezeichnet.",
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
    "in der Adressleiste), um mit dem Assistenten zu sprechen.",
  unavailable:
    "Der Assistent ist gerade nicht verfügbar. Bitte versuchen Sie es in ein paar Minuten erneut.",
  busy:
    "Gerade werden zu viele Gespräche gestartet. Bitte versuchen Sie es in einer Minute " +
    "erneut.",
  failed: "Der Assistent war nicht erreichbar. Bitte versuchen Sie es erneut.",
  lost: "Die Verbindung wurde unterbrochen. Bitte versuchen Sie es erneut.",
};
