import type { Strings } from "../../../widget/src/strings.ts";

export const sv: Partial<Strings> = {
  launcher: "Prata med röstassistenten hos {business}",
  close: "Stäng",
  privacy: "Integritet",
  notice:
    "Det du säger eller skriver till assistenten hos {business} behandlas av företaget och dess " +
    "AI-leverantör för att kunna svara dig; tal transkriberas och ljudet spelas inte in. För att " +
    "prata behöver du mikrofonen.",
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
    "adressfältet) för att prata, eller skriv din fråga i stället.",
  no_microphone: "Ingen mikrofon hittades. Du kan skriva din fråga i stället.",
  insecure: "För att prata krävs en säker sida (https). Du kan skriva din fråga i stället.",
  voice_failed: "Röstanslutningen kunde inte upprättas. Du kan skriva din fråga i stället.",
  unavailable: "Assistenten är inte tillgänglig just nu. Försök igen om några minuter.",
  busy: "För många samtal startar just nu. Försök igen om en minut.",
  failed: "Det gick inte att nå assistenten. Försök igen.",
  lost: "Anslutningen bröts. Försök igen.",
  captions: "Samtal",
  you: "Du",
  assistant: "Assistent",
  looked_up: "Slog upp {what}",
  searched_site: "Sökte på webbplatsen efter ”{what}”",
  sent_details: "Skickade vidare dina uppgifter",
  hide_captions: "Dölj textning",
  show_captions: "Visa textning",
  message: "Skriv ett meddelande",
  send: "Skicka",
  type_instead: "Skriv i stället",
  typing_ready: "Skriv ditt meddelande nedan.",
  writing: "Skriver…",
  mute: "Stäng av mikrofonen",
  muted: "Mikrofonen är avstängd. Assistenten hör dig inte.",
  end_chat: "Avsluta konversationen",
  chat_ended: "Konversationen har avslutats.",
  person: "Prata med en person",
  callback_intro:
    "Lämna ditt namn och ett telefonnummer eller en e-postadress, så hör {business} av sig till " +
    "dig.",
  name: "Namn",
  phone: "Telefon",
  email: "E-post",
  reason: "Vad gäller det?",
  send_callback: "Be om att bli uppringd",
  cancel: "Avbryt",
  callback_missing: "Ange ditt namn, ett telefonnummer eller en e-postadress och vad det gäller.",
  callback_sent: "Tack! {business} hör av sig till dig.",
  callback_failed: "Det gick inte att skicka din förfrågan. Försök igen.",
};
