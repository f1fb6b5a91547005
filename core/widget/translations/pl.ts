import type { Strings } from "../../../widget/src/strings.ts";

export const pl: Partial<Strings> = {
  launcher: "Porozmawiaj z asystentem głosowym firmy {business}",
  close: "Zamknij",
  privacy: "Prywatność",
  notice:
    "Aby porozmawiać z asystentem firmy {business}, zezwól na dostęp do mikrofonu. To, co " +
    "powiesz, jest transkrybowane i przetwarzane przez firmę i jej dostawcę AI, aby ci " +
    "odpowiedzieć; dźwięk nie jest nagrywany.",
  visitor_id:
    "Twój identyfikator odwiedzającego: {id} — podaj go, aby poprosić tę firmę o kopię swoich " +
    "danych lub ich usunięcie.",
  start: "Zacznij mówić",
  not_now: "Nie teraz",
  end_call: "Zakończ rozmowę",
  connecting: "Łączenie…",
  reconnecting: "Ponowne łączenie…",
  listening: "Słucham. Możesz mówić.",
  speaking: "Mówi…",
  ended: "Rozmowa zakończona.",
  error: "Coś poszło nie tak.",
  microphone_refused:
    "Twoja przeglądarka nie zezwoliła na użycie mikrofonu. Zezwól na nie dla tej witryny " +
    "(ikona na pasku adresu), aby porozmawiać z asystentem.",
  unavailable: "Asystent jest teraz niedostępny. Spróbuj ponownie za kilka minut.",
  busy: "W tej chwili rozpoczyna się zbyt wiele rozmów. Spróbuj ponownie za minutę.",
  failed: "Nie udało się połączyć z asystentem. Spróbuj ponownie.",
  lost: "Połączenie zostało przerwane. Spróbuj ponownie.",
};
