/**
 * What OpenAI's Realtime API refuses in the client events the stand-in acts on, with the problem
 * it answers in an `error` event (API reference, "Realtime client events"; the GA shapes, as the
 * official SDK types them): a `conversation.item.create` whose item is not a `message` of role
 * `user` (content `input_text` with `text`, `input_audio`, `input_image`), `system` (`input_text`)
 * or `assistant` (`output_text` only: OpenAI cannot take assistant audio), a `function_call`, or a
 * `function_call_output` with its `call_id` and `output`; an unknown field; an `output_modalities`
 * other than `["text"]` or `["audio"]` in `session.update` or `response.create`.
 */
import type { OpenAiErrorBody } from "./openai-errors.ts";
import { BodyCheck } from "./openai-params.ts";

type Event = Record<string, unknown>;

/** The fields of each client event checked here, besides `type` and `event_id`. */
const EVENT_FIELDS: Record<string, string[]> = {
  "conversation.item.create": ["item", "previous_item_id"],
  "response.create": ["response"],
  "session.update": ["session"],
};
const RESPONSE_FIELDS = [
  "audio",
  "conversation",
  "input",
  "instructions",
  "max_output_tokens",
  "metadata",
  "output_modalities",
  "parallel_tool_calls",
  "prompt",
  "reasoning",
  "tool_choice",
  "tools",
];
const ITEM_FIELDS = ["id", "object", "type", "status"];
const FIELDS_OF_TYPE: Record<string, string[]> = {
  message: ["role", "content"],
  function_call: ["call_id", "name", "arguments"],
  function_call_output: ["call_id", "output"],
};
const PART_FIELDS: Record<string, string[]> = {
  input_text: ["text"],
  input_audio: ["audio", "transcript"],
  input_image: ["image_url", "detail"],
  output_text: ["text"],
};
const PARTS_OF_ROLE: Record<string, string[]> = {
  user: ["input_text", "input_audio", "input_image"],
  system: ["input_text"],
  assistant: ["output_text"],
};

/** The first way `event` breaks the contract, as OpenAI words it; undefined when it holds. */
export function clientEventProblem(event: Event): OpenAiErrorBody | undefined {
  const fields = EVENT_FIELDS[event.type as string];
  if (fields === undefined) return undefined;
  const check = new BodyCheck();
  const root = check.object(event, "", ["type", "event_id", ...fields]);
  if (root === undefined) return check.problem;
  if (event.type === "conversation.item.create") itemOk(check, root.item);
  if (event.type === "response.create" && root.response !== undefined) {
    const params = check.object(root.response, "response", RESPONSE_FIELDS);
    if (params?.output_modalities !== undefined) {
      check.modalities(params.output_modalities, "response.output_modalities");
    }
  }
  if (event.type === "session.update") {
    const session = check.object(root.session, "session");
    if (session?.output_modalities !== undefined) {
      check.modalities(session.output_modalities, "session.output_modalities");
    }
  }
  return check.problem;
}

function itemOk(check: BodyCheck, value: unknown): boolean {
  const types = Object.keys(FIELDS_OF_TYPE);
  const loose = check.object(value, "item");
  if (loose === undefined || !check.oneOf(loose.type, "item.type", types)) return false;
  const type = loose.type as string;
  const item = check.object(value, "item", [...ITEM_FIELDS, ...(FIELDS_OF_TYPE[type] ?? [])]);
  if (item === undefined) return false;
  if (item.id !== undefined && !check.string(item.id, "item.id")) return false;
  if (type !== "message") {
    return (FIELDS_OF_TYPE[type] ?? []).every((field) =>
      check.string(item[field], `item.${field}`),
    );
  }
  if (!check.oneOf(item.role, "item.role", Object.keys(PARTS_OF_ROLE))) return false;
  const allowed = PARTS_OF_ROLE[item.role as string] ?? [];
  if (!check.array(item.content, "item.content")) return false;
  return (item.content as unknown[]).every((part, index) => {
    const at = `item.content[${index}]`;
    const loosePart = check.object(part, at);
    if (loosePart === undefined || !check.oneOf(loosePart.type, `${at}.type`, allowed)) {
      return false;
    }
    const partType = loosePart.type as string;
    if (check.object(part, at, ["type", ...(PART_FIELDS[partType] ?? [])]) === undefined) {
      return false;
    }
    return partType !== "input_text" && partType !== "output_text"
      ? true
      : check.string(loosePart.text, `${at}.text`);
  });
}
