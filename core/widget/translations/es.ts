import type { Strings } from "../../../widget/src/strings.ts";

export const es: Partial<Strings> = {
  launcher: "Hablar con el asistente de voz de {business}",
  close: "Cerrar",
  privacy: "Privacidad",
  notice:
    "Para hablar con el asistente de {business}, permite el acceso a tu micrófono. Lo que digas " +
    "se transcribe y lo procesan la empresa y su proveedor de IA para responderte; el audio no " +
    "se graba.",
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
    "direcciones) para hablar con el asistente.",
  unavailable:
    "El asistente no está disponible en este momento. Inténtalo de nuevo en unos minutos.",
  busy: "Se están iniciando demasiadas conversaciones. Inténtalo de nuevo en un minuto.",
  failed: "No se pudo contactar con el asistente. Inténtalo de nuevo.",
  lost: "Se perdió la conexión. Inténtalo de nuevo.",
};
