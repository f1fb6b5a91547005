import type { Strings } from "../../../widget/src/strings.ts";

export const sv: Partial<Strings> = {
  launcher: "Prata med röstassistenten hos {business}",
  close: "Stäng",
  privacy: "Integritet",
  notice:
    "Tillåt mikrofonen för att prata med assistenten hos {business}. Det du säger transkriberas " +
    "och behandlas av företaget och dess AI-leverantör för att kunna svara dig; ljudet spelas " +
    "inte in.",
  visitor_id:
    "Ditt besökar-ID: {id} – ange det för att be företaget om en kopia av dina uppgifter eller " +
    "om att de raderas.",
  start: "Börja prata",
  not_now: "Inte nu",
  end_call: "Avsluta samtalet",
  connecting: "Ansluter…",
  reconnecting: "Återansluter…",
  listening: "Lyssnar. Varsågod och prata.",
  speaking: "Talar…",
  ended: "Samtalet har avslutats.",
  error: "Något gick fel.",
  microphone_refused:
    "Din webbläsare tillät inte mikrofonen. Tillåt den för den här webbplatsen (ikonen i " +
    "adressfältet) för att prata med assistenten.",
  unavailable: "Assistenten är inte tillgänglig just nu. Försök igen om några minuter.",
  busy: "För många samtal startar just nu. Försök igen om en minut.",
  failed: "Det gick inte att nå assistenten. Försök igen.",
  lost: "Anslutningen bröts. Försök igen.",
};
