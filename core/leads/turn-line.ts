/** A callback's turn as one line a person reads (the mail, the dashboard): who, then what. */
import type { CallbackTurn } from "../types/generated/lead-create.ts";

const WHO = { visitor: "Visitor", assistant: "Assistant" } as const;

export function turnLine(turn: CallbackTurn): string {
  if (turn.role === "function") return `Looked up: ${turn.name ?? "a function"}`;
  return `${WHO[turn.role]}: ${turn.text ?? ""}`;
}
