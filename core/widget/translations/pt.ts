import type { Strings } from "../../../widget/src/strings.ts";

/** Brazilian Portuguese, for every `pt` site; a Portuguese site may override what reads foreign. */
export const pt: Partial<Strings> = {
  launcher: "Falar com o assistente de voz de {business}",
  close: "Fechar",
  privacy: "Privacidade",
  notice:
    "Para falar com o assistente de {business}, permita o acesso ao microfone. O que você disser " +
    "é transcrito e processado pela empresa e pelo provedor de IA dela para responder a você; o " +
    "áudio não é gravado.",
  visitor_id:
    "Seu ID de visitante: {id} — informe-o para pedir a esta empresa uma cópia dos seus dados " +
    "ou a exclusão deles.",
  start: "Começar a falar",
  not_now: "Agora não",
  end_call: "Encerrar chamada",
  connecting: "Conectando…",
  reconnecting: "Reconectando…",
  listening: "Ouvindo. Pode falar.",
  speaking: "Falando…",
  ended: "Chamada encerrada.",
  error: "Algo deu errado.",
  microphone_refused:
    "Seu navegador não permitiu o microfone. Permita-o para este site (o ícone na barra de " +
    "endereços) para falar com o assistente.",
  unavailable: "O assistente não está disponível agora. Tente novamente em alguns minutos.",
  busy: "Muitas conversas estão começando agora. Tente novamente em um minuto.",
  failed: "Não foi possível contatar o assistente. Tente novamente.",
  lost: "A conexão caiu. Tente novamente.",
};
