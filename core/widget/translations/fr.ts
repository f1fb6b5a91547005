import type { Strings } from "../../../widget/src/strings.ts";

export const fr: Partial<Strings> = {
  launcher: "Parler à l’assistant vocal de {business}",
  close: "Fermer",
  privacy: "Confidentialité",
  notice:
    "Ce que vous dites ou écrivez à l’assistant de {business} est traité par l’entreprise et son " +
    "fournisseur d’IA pour vous répondre ; vos paroles sont transcrites et l’audio n’est pas " +
    "enregistré. Pour parler, votre micro est nécessaire.",
  visitor_id:
    "Votre identifiant de visiteur : {id} — indiquez-le pour demander à cette entreprise une " +
    "copie de vos données ou leur suppression.",
  start: "Commencer à parler",
  not_now: "Pas maintenant",
  end_call: "Terminer l’appel",
  connecting: "Connexion…",
  reconnecting: "Reconnexion…",
  listening: "À l’écoute. Vous pouvez parler.",
  speaking: "L’assistant parle…",
  ended: "Appel terminé.",
  error: "Une erreur s’est produite.",
  microphone_refused:
    "Votre navigateur n’a pas autorisé le micro. Autorisez-le pour ce site (l’icône dans la " +
    "barre d’adresse) pour parler, ou écrivez plutôt votre question.",
  no_microphone: "Aucun micro n’a été trouvé. Vous pouvez écrire votre question à la place.",
  insecure:
    "Pour parler, la page doit être sécurisée (https). Vous pouvez écrire votre question à la " +
    "place.",
  voice_failed:
    "La connexion vocale n’a pas pu être établie. Vous pouvez écrire votre question à la place.",
  unavailable:
    "L’assistant n’est pas disponible pour le moment. Veuillez réessayer dans quelques minutes.",
  busy: "Trop de conversations démarrent en ce moment. Veuillez réessayer dans une minute.",
  failed: "Impossible de joindre l’assistant. Veuillez réessayer.",
  lost: "La connexion a été perdue. Veuillez réessayer.",
  captions: "Conversation",
  you: "Vous",
  assistant: "Assistant",
  looked_up: "A consulté {what}",
  searched_site: "A cherché «\u00a0{what}\u00a0» sur le site",
  sent_details: "A transmis vos coordonnées",
  hide_captions: "Masquer les sous-titres",
  show_captions: "Afficher les sous-titres",
  message: "Écrivez un message",
  send: "Envoyer",
  type_instead: "Écrire plutôt",
  typing_ready: "Écrivez votre message ci-dessous.",
  writing: "L’assistant écrit…",
  mute: "Couper le micro",
  muted: "Micro coupé. L’assistant ne vous entend pas.",
  end_chat: "Terminer la conversation",
  chat_ended: "Conversation terminée.",
  person: "Parler à une personne",
  callback_intro:
    "Laissez votre nom et un numéro de téléphone ou une adresse e-mail, et {business} vous " +
    "recontactera.",
  name: "Nom",
  phone: "Téléphone",
  email: "E-mail",
  reason: "À quel sujet ?",
  send_callback: "Demander un rappel",
  cancel: "Annuler",
  callback_missing:
    "Veuillez indiquer votre nom, un numéro de téléphone ou une adresse e-mail, et l’objet de votre demande.",
  callback_sent: "Merci. {business} vous recontactera.",
  callback_failed: "Votre demande n’a pas pu être envoyée. Veuillez réessayer.",
};
