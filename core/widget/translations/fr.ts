import type { Strings } from "../../../widget/src/strings.ts";

export const fr: Partial<Strings> = {
  launcher: "Parler à l’assistant vocal de {business}",
  close: "Fermer",
  privacy: "Confidentialité",
  notice:
    "Pour parler avec l’assistant de {business}, autorisez votre micro. Ce que vous dites est " +
    "transcrit et traité par l’entreprise et son fournisseur d’IA pour vous répondre ; l’audio " +
    "n’est pas enregistré.",
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
    "barre d’adresse) pour parler avec l’assistant.",
  unavailable:
    "L’assistant n’est pas disponible pour le moment. Veuillez réessayer dans quelques minutes.",
  busy: "Trop de conversations démarrent en ce moment. Veuillez réessayer dans une minute.",
  failed: "Impossible de joindre l’assistant. Veuillez réessayer.",
  lost: "La connexion a été perdue. Veuillez réessayer.",
};
