/**
 * The optional capability of a voice provider to control a call from the server (OpenAI calls it
 * a sideband connection): the service joins the call a visitor's browser holds, keeps the site's
 * instructions and tools on it, ends it when the site's limits say so, and hears the token usage
 * the provider confirms for each response. A provider without it keeps working: its calls are not
 * controlled and their cost stays unknown.
 */
import type { VoiceTool } from "./voice-tool.ts";

/** What the service keeps on a call: the instructions and tools the site's session was minted with. */
export interface ControlledSession {
  instructions: string;
  tools: VoiceTool[];
}

/** Token counts by modality. */
export interface TokenCounts {
  text: number;
  audio: number;
  image: number;
}

/** The tokens one response of the model used, as the provider confirms them for billing. */
export interface ResponseUsage {
  /** The provider's id of the response: reported again (after a reconnect), it counts once. */
  response_id: string;
  /** The model that answered, whose prices apply. */
  model: string;
  /** Input tokens billed at the full price (the cached ones not among them). */
  input: TokenCounts;
  /** Input tokens read from the provider's cache, billed at the cached price. */
  cached: TokenCounts;
  output: Omit<TokenCounts, "image">;
}

/** What a controlled call tells the service, in the order the provider sends it. */
export interface CallEvents {
  /**
   * The call's session as the provider now holds it. The service compares it with what it keeps
   * on the call, and puts its own back when anyone else (the visitor's page) changed it.
   */
  session(current: ControlledSession): void;
  /** A response's confirmed usage. */
  usage(usage: ResponseUsage): void;
  /** The control connection closed; the service reconnects unless the call is over. */
  closed(reason: string): void;
}

/** One joined call. */
export interface CallControl {
  /** Puts `session` (instructions and tools) on the call; resolves once it is sent. */
  apply(session: ControlledSession): Promise<void>;
  /** Ends the call for everyone: the visitor's connection closes too. */
  hangUp(): Promise<void>;
  /** Leaves the call without ending it (this instance stops). */
  close(): void;
}

/** Thrown by `controlCall` when the provider says the call is over, or was never there. */
export class CallEnded extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CallEnded";
  }
}
