import type { Strings } from "../../../widget/src/strings.ts";

export const es: Partial<Strings> = {
  launcher: "Hablar con el asistente de voz de {business}",
  close: "Cerrar",
  privacy: "Privacidad",
  notice:
    "Lo que digas o escribas al asistente de {business} lo procesan la empresa y su proveedor de " +
    "IA para responderte; la voz se transcribe y el audio no se graba. Para hablar necesitas el " +
    "micrófono.",
  visitor_id:
    "Tu ID de visitante: {id} — indícalo para pedir a esta empresa una copia de tus datos o su " +
    "eliminación.",
  start: "Empezar a hablar",
  not_now: "Ahora no",
  end_call: "Finalizar llamada",
  connecting: "Conectando…",
  reconnecting: "Reconectando…",
  listening: "Escuchando. Puedes hablar.",
  speaking: "Hablando…",
  ended: "Llamada finalizada.",
  error: "Algo salió mal.",
  microphone_refused:
    "Tu navegador no permitió el micrófono. Permítelo para este sitio (el icono de la barra de " +
    "direcciones) para hablar, o escribe tu pregunta.",
  no_microphone: "No se encontró ningún micrófono. Puedes escribir tu pregunta.",
  insecure: "Para hablar se necesita una página segura (https). Puedes escribir tu pregunta.",
  voice_failed: "No se pudo establecer la conexión de voz. Puedes escribir tu pregunta.",
  unavailable:
    "El asistente no está disponible en este momento. Inténtalo de nuevo en unos minutos.",
  busy: "Se están iniciando demasiadas conversaciones. Inténtalo de nuevo en un minuto.",
  failed: "No se pudo contactar con el asistente. Inténtalo de nuevo.",
  lost: "Se perdió la conexión. Inténtalo de nuevo.",
  captions: "Conversación",
  you: "Tú",
  assistant: "Asistente",
  looked_up: "Consultó {what}",
  searched_site: "Buscó «{what}» en el sitio",
  sent_details: "Envió tus datos",
  hide_captions: "Ocultar subtítulos",
  show_captions: "Mostrar subtítulos",
  message: "Escribe un mensaje",
  send: "Enviar",
  type_instead: "Prefiero escribir",
  typing_ready: "Escribe tu mensaje abajo.",
  writing: "Escribiendo…",
  mute: "Silenciar",
  muted: "Silenciado. El asistente no te oye.",
  end_chat: "Finalizar conversación",
  chat_ended: "Conversación finalizada.",
  person: "Hablar con una persona",
  callback_intro:
    "Deja tu nombre y un teléfono o correo electrónico, y {business} se pondrá en contacto " +
    "contigo.",
  name: "Nombre",
  phone: "Teléfono",
  email: "Correo electrónico",
  reason: "¿De qué se trata?",
  send_callback: "Pedir que me llamen",
  cancel: "Cancelar",
  callback_missing: "Indica tu nombre, un teléfono o un correo electrónico y el motivo.",
  callback_sent: "Gracias. {business} se pondrá en contacto contigo.",
  callback_failed: "No se pudo enviar tu solicitud. Inténtalo de nuevo.",
};
