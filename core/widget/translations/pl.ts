import type { Strings } from "../../../widget/src/strings.ts";

export const pl: Partial<Strings> = {
  launcher: "Porozmawiaj z asystentem głosowym firmy {business}",
  close: "Zamknij",
  privacy: "Prywatność",
  notice:
    "To, co mówisz lub piszesz do asystenta firmy {business}, jest przetwarzane przez firmę i " +
    "jej dostawcę AI, aby ci odpowiedzieć; mowa jest transkrybowana, a dźwięk nie jest " +
    "nagrywany. Do rozmowy głosowej potrzebny jest mikrofon.",
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
    "Twoja przeglądarka nie zezwoliła na użycie mikrofonu. Zezwól na nie dla tej witryny (ikona " +
    "na pasku adresu), aby mówić, albo wpisz swoje pytanie.",
  no_microphone: "Nie znaleziono mikrofonu. Możesz zamiast tego wpisać pytanie.",
  insecure:
    "Rozmowa głosowa wymaga bezpiecznej strony (https). Możesz zamiast tego wpisać pytanie.",
  voice_failed: "Nie udało się nawiązać połączenia głosowego. Możesz zamiast tego wpisać pytanie.",
  unavailable: "Asystent jest teraz niedostępny. Spróbuj ponownie za kilka minut.",
  busy: "W tej chwili rozpoczyna się zbyt wiele rozmów. Spróbuj ponownie za minutę.",
  failed: "Nie udało się połączyć z asystentem. Spróbuj ponownie.",
  lost: "Połączenie zostało przerwane. Spróbuj ponownie.",
  captions: "Rozmowa",
  you: "Ty",
  assistant: "Asystent",
  looked_up: "Sprawdzono: {what}",
  searched_site: "Wyszukano w witrynie: „{what}”",
  sent_details: "Przekazano twoje dane",
  hide_captions: "Ukryj napisy",
  show_captions: "Pokaż napisy",
  message: "Napisz wiadomość",
  send: "Wyślij",
  type_instead: "Wolę pisać",
  typing_ready: "Wpisz wiadomość poniżej.",
  writing: "Pisze…",
  mute: "Wycisz",
  muted: "Wyciszono. Asystent cię nie słyszy.",
  end_chat: "Zakończ czat",
  chat_ended: "Czat zakończony.",
  person: "Porozmawiaj z konsultantem",
  callback_intro:
    "Zostaw imię i nazwisko oraz numer telefonu lub adres e-mail, a firma {business} skontaktuje " +
    "się z tobą.",
  name: "Imię i nazwisko",
  phone: "Telefon",
  email: "E-mail",
  reason: "Czego dotyczy sprawa?",
  send_callback: "Poproś o oddzwonienie",
  cancel: "Anuluj",
  callback_missing: "Podaj imię i nazwisko, numer telefonu lub adres e-mail oraz temat.",
  callback_sent: "Dziękujemy. Firma {business} skontaktuje się z tobą.",
  callback_failed: "Nie udało się wysłać prośby. Spróbuj ponownie.",
};
