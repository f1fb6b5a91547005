/**
 * Whether a call's session, as the provider reports it, is still the one the service keeps on
 * it: the same instructions, the same tools by name, and each tool as the service sent it, or as
 * the provider echoed the service's own last update (a provider may add defaults to a tool, which
 * is not a change anyone made).
 */
import type { ControlledSession } from "../host/call-control.ts";

export function sameSession(
  current: ControlledSession,
  kept: ControlledSession,
  echoed?: ControlledSession,
): boolean {
  if (current.instructions !== kept.instructions) return false;
  if (names(current) !== names(kept)) return false;
  const tools = canonical(current.tools);
  return (
    tools === canonical(kept.tools) || (echoed !== undefined && tools === canonical(echoed.tools))
  );
}

const names = (session: ControlledSession) =>
  session.tools
    .map((tool) => tool.name)
    .sort()
    .join("\n");

/** JSON with object keys sorted, tools in name order: equal for equal content. */
function canonical(tools: ControlledSession["tools"]): string {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return JSON.stringify(sorted, (_key, value: unknown) =>
    value !== null && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}
