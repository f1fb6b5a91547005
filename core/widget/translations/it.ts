import type { Strings } from "../../../widget/src/strings.ts";

export const it: Partial<Strings> = {
  launcher: "Parla con l’assistente vocale di {business}",
  close: "Chiudi",
  privacy: "Privacy",
  notice:
    "Per parlare con l’assistente di {business}, consenti l’accesso al microfono. Ciò che dici " +
    "viene trascritto ed elaborato dall’azienda e dal suo fornitore di IA per risponderti; " +
    "l’audio non viene registrato.",
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
    "nella barra degli indirizzi) per parlare con l’assistente.",
  unavailable: "L’assistente non è disponibile al momento. Riprova tra qualche minuto.",
  busy: "In questo momento stanno iniziando troppe conversazioni. Riprova tra un minuto.",
  failed: "Impossibile raggiungere l’assistente. Riprova.",
  lost: "La connessione si è interrotta. Riprova.",
};
