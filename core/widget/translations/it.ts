import type { Strings } from "../../../widget/src/strings.ts";

export const it: Partial<Strings> = {
  launcher: "Parla con l’assistente vocale di {business}",
  close: "Chiudi",
  privacy: "Privacy",
  notice:
    "Ciò che dici o scrivi all’assistente di {business} viene elaborato dall’azienda e dal suo " +
    "fornitore di IA per risponderti; la voce viene trascritta e l’audio non viene registrato. " +
    "Per parlare serve il microfono.",
  visitor_id:
    "Il tuo ID visitatore: {id} — indicalo per chiedere a questa azienda una copia dei tuoi dati " +
    "o la loro cancellazione.",
  start: "Inizia a parlare",
  not_now: "Non ora",
  end_call: "Termina chiamata",
  connecting: "Connessione in corso…",
  reconnecting: "Riconnessione in corso…",
  listening: "In ascolto. Puoi parlare.",
  speaking: "Sta parlando…",
  ended: "Chiamata terminata.",
  error: "Qualcosa è andato storto.",
  microphone_refused:
    "Il tuo browser non ha consentito l’uso del microfono. Consentilo per questo sito (l’icona " +
    "nella barra degli indirizzi) per parlare, oppure scrivi la tua domanda.",
  no_microphone: "Nessun microfono trovato. Puoi scrivere la tua domanda.",
  insecure: "Per parlare serve una pagina sicura (https). Puoi scrivere la tua domanda.",
  voice_failed: "Impossibile stabilire la connessione vocale. Puoi scrivere la tua domanda.",
  unavailable: "L’assistente non è disponibile al momento. Riprova tra qualche minuto.",
  busy: "In questo momento stanno iniziando troppe conversazioni. Riprova tra un minuto.",
  failed: "Impossibile raggiungere l’assistente. Riprova.",
  lost: "La connessione si è interrotta. Riprova.",
  captions: "Conversazione",
  you: "Tu",
  assistant: "Assistente",
  looked_up: "Ha consultato {what}",
  searched_site: "Ha cercato «{what}» nel sito",
  sent_details: "Ha inoltrato i tuoi dati",
  hide_captions: "Nascondi sottotitoli",
  show_captions: "Mostra sottotitoli",
  message: "Scrivi un messaggio",
  send: "Invia",
  type_instead: "Preferisco scrivere",
  typing_ready: "Scrivi il tuo messaggio qui sotto.",
  writing: "Sta scrivendo…",
  mute: "Disattiva microfono",
  muted: "Microfono disattivato. L’assistente non ti sente.",
  end_chat: "Termina conversazione",
  chat_ended: "Conversazione terminata.",
  person: "Parla con una persona",
  callback_intro:
    "Lascia il tuo nome e un numero di telefono o un indirizzo email: {business} ti ricontatterà.",
  name: "Nome",
  phone: "Telefono",
  email: "Email",
  reason: "Di cosa si tratta?",
  send_callback: "Richiedi una richiamata",
  cancel: "Annulla",
  callback_missing: "Indica il tuo nome, un numero di telefono o un indirizzo email e il motivo.",
  callback_sent: "Grazie. {business} ti ricontatterà.",
  callback_failed: "Impossibile inviare la richiesta. Riprova.",
};
