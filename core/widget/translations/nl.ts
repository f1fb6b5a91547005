import type { Strings } from "../../../widget/src/strings.ts";

export const nl: Partial<Strings> = {
  launcher: "Praat met de spraakassistent van {business}",
  close: "Sluiten",
  privacy: "Privacy",
  notice:
    "Wat je tegen de assistent van {business} zegt of typt, wordt door het bedrijf en zijn " +
    "AI-aanbieder verwerkt om je te antwoorden; gesproken woorden worden uitgeschreven en geluid " +
    "wordt niet opgenomen. Om te praten heb je je microfoon nodig.",
  visitor_id:
    "Je bezoekers-ID: {id} — noem deze om dit bedrijf om een kopie of verwijdering van je " +
    "gegevens te vragen.",
  start: "Begin met praten",
  not_now: "Niet nu",
  end_call: "Gesprek beëindigen",
  connecting: "Verbinden…",
  reconnecting: "Opnieuw verbinden…",
  listening: "Ik luister. Zeg het maar.",
  speaking: "Spreekt…",
  ended: "Gesprek beëindigd.",
  error: "Er is iets misgegaan.",
  microphone_refused:
    "Je browser heeft de microfoon niet toegestaan. Sta hem toe voor deze website (het pictogram " +
    "in de adresbalk) om te praten, of typ je vraag.",
  no_microphone: "Er is geen microfoon gevonden. Je kunt je vraag ook typen.",
  insecure: "Praten kan alleen op een beveiligde pagina (https). Je kunt je vraag ook typen.",
  voice_failed: "De spraakverbinding kon niet worden gemaakt. Je kunt je vraag ook typen.",
  unavailable: "De assistent is nu niet beschikbaar. Probeer het over een paar minuten opnieuw.",
  busy: "Er starten nu te veel gesprekken tegelijk. Probeer het over een minuut opnieuw.",
  failed: "De assistent kon niet worden bereikt. Probeer het opnieuw.",
  lost: "De verbinding is verbroken. Probeer het opnieuw.",
  captions: "Gesprek",
  you: "Jij",
  assistant: "Assistent",
  looked_up: "{what} opgezocht",
  searched_site: "Op de website gezocht naar ‘{what}’",
  sent_details: "Je gegevens doorgegeven",
  hide_captions: "Ondertiteling verbergen",
  show_captions: "Ondertiteling tonen",
  message: "Typ een bericht",
  send: "Versturen",
  type_instead: "Liever typen",
  typing_ready: "Typ je bericht hieronder.",
  writing: "Typt…",
  mute: "Dempen",
  muted: "Gedempt. De assistent hoort je niet.",
  end_chat: "Chat beëindigen",
  chat_ended: "Chat beëindigd.",
  person: "Met een medewerker praten",
  callback_intro:
    "Laat je naam en een telefoonnummer of e-mailadres achter, dan neemt {business} contact met " +
    "je op.",
  name: "Naam",
  phone: "Telefoon",
  email: "E-mail",
  reason: "Waar gaat het over?",
  send_callback: "Terugbelverzoek versturen",
  cancel: "Annuleren",
  callback_missing: "Vul je naam, een telefoonnummer of e-mailadres en je vraag in.",
  callback_sent: "Bedankt. {business} neemt contact met je op.",
  callback_failed: "Je verzoek kon niet worden verstuurd. Probeer het opnieuw.",
};
