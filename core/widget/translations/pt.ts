import type { Strings } from "../../../widget/src/strings.ts";

/** Brazilian Portuguese, for every `pt` site; a Portuguese site may override what reads foreign. */
export const pt: Partial<Strings> = {
  launcher: "Falar com o assistente de voz de {business}",
  close: "Fechar",
  privacy: "Privacidade",
  notice:
    "O que você disser ou digitar para o assistente de {business} é processado pela empresa e " +
    "pelo provedor de IA dela para responder a você; a fala é transcrita e o áudio não é " +
    "gravado. Para falar, é preciso usar o microfone.",
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
    "endereços) para falar, ou digite sua pergunta.",
  no_microphone: "Nenhum microfone foi encontrado. Você pode digitar sua pergunta.",
  insecure: "Para falar, a página precisa ser segura (https). Você pode digitar sua pergunta.",
  voice_failed: "Não foi possível estabelecer a conexão de voz. Você pode digitar sua pergunta.",
  unavailable: "O assistente não está disponível agora. Tente novamente em alguns minutos.",
  busy: "Muitas conversas estão começando agora. Tente novamente em um minuto.",
  failed: "Não foi possível contatar o assistente. Tente novamente.",
  lost: "A conexão caiu. Tente novamente.",
  captions: "Conversa",
  you: "Você",
  assistant: "Assistente",
  looked_up: "Consultou {what}",
  searched_site: "Pesquisou “{what}” no site",
  sent_details: "Encaminhou seus dados",
  hide_captions: "Ocultar legendas",
  show_captions: "Mostrar legendas",
  message: "Digite uma mensagem",
  send: "Enviar",
  type_instead: "Prefiro digitar",
  typing_ready: "Digite sua mensagem abaixo.",
  writing: "Escrevendo…",
  mute: "Silenciar",
  muted: "Microfone silenciado. O assistente não ouve você.",
  end_chat: "Encerrar conversa",
  chat_ended: "Conversa encerrada.",
  person: "Falar com uma pessoa",
  callback_intro:
    "Deixe seu nome e um telefone ou e-mail, e {business} entrará em contato com você.",
  name: "Nome",
  phone: "Telefone",
  email: "E-mail",
  reason: "Qual é o assunto?",
  send_callback: "Solicitar retorno",
  cancel: "Cancelar",
  callback_missing: "Informe seu nome, um telefone ou e-mail e o assunto.",
  callback_sent: "Obrigado. {business} entrará em contato com você.",
  callback_failed: "Não foi possível enviar sua solicitação. Tente novamente.",
};
