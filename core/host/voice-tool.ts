/** A function the voice agent may call, in the JSON Schema form realtime providers take. */
export interface VoiceTool {
  type: "function";
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}
