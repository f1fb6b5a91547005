import type { Strings } from "../../../widget/src/strings.ts";

export const nl: Partial<Strings> = {
  launcher: "Praat met de spraakassistent van {business}",
  close: "Sluiten",
  privacy: "Privacy",
  notice:
    "Sta je microfoon toe om met de assistent van {business} te praten. Wat je zegt, wordt " +
    "uitgeschreven en door het bedrijf en zijn AI-aanbieder verwerkt om je te antwoorden; " +
    "geluid wordt niet opgenomen.",
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
    "Je browser heeft de microfoon niet toegestaan. Sta hem toe voor deze website (het " +
    "pictogram in de adresbalk) om met de assistent te praten.",
  unavailable: "De assistent is nu niet beschikbaar. Probeer het over een paar minuten opnieuw.",
  busy: "Er starten nu te veel gesprekken tegelijk. Probeer het over een minuut opnieuw.",
  failed: "De assistent kon niet worden bereikt. Probeer het opnieuw.",
  lost: "De verbinding is verbroken. Probeer het opnieuw.",
};
