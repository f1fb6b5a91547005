/**
 * What the agent's functions and the panel's callback form do with a conversation's session: a
 * function call is counted, kept as a transcript turn, noted in the captions and run (tools.ts);
 * the form's request is the agent's request_callback, signed by the conversation's session or,
 * when none is on, by a session of its own (no provider) that ends with it.
 */
import type { Api, Signer } from "./api.ts";
import type { FunctionCall } from "./call.ts";
import type { CallbackFields } from "./callback-form.ts";
import { runTool, toolNote } from "./tools.ts";
import type { CrawledPage, StoredSession, Turn } from "./types.ts";
import type { WidgetUi } from "./ui.ts";

export class AgentFunctions {
  private pages: Promise<CrawledPage[]> | undefined;

  /** `record` keeps a turn in the conversation (its transcript and captions). */
  constructor(
    private readonly api: Api,
    private readonly ui: WidgetUi,
    private readonly record: (turn: Turn) => void,
  ) {}

  /** Runs the agent's `call` in `session`; what it resolves to is what the model reads. */
  async run(session: StoredSession | undefined, call: FunctionCall): Promise<unknown> {
    if (session === undefined) return { error: "The conversation has ended" };
    session.function_calls += 1;
    this.record({
      role: "function",
      name: call.name,
      arguments: call.arguments,
      at: new Date().toISOString(),
    });
    const note = toolNote(call, this.ui.text);
    if (note !== undefined) this.ui.captions.note(note);
    // The call's id keeps each event its own: the service counts a repeated one once. A site
    // search is counted by the service as it answers it.
    if (call.name !== "search_site") {
      const event = {
        type: "function_call",
        function_name: call.name,
        metadata: { client_event_id: call.call_id },
      };
      this.api.signed(session, "analytics/event", event).catch(() => undefined);
    }
    return runTool(call, {
      api: this.api,
      signer: session,
      pages: () => this.crawledPages(),
      navigate: (url) => location.assign(url),
      turns: () => session.turns,
    });
  }

  /** The crawled pages and their sections (site intelligence); none when it cannot be read. */
  crawledPages(): Promise<CrawledPage[]> {
    this.pages ??= this.api.pages().catch(() => []);
    return this.pages;
  }

  /** "Talk to a person" from the panel; resolves true once the lead is recorded. */
  async requestCallback(
    session: StoredSession | undefined,
    fields: CallbackFields,
    pageUrl: string,
  ): Promise<boolean> {
    let signer: Signer;
    try {
      signer = session ?? (await this.api.callbackSession(pageUrl));
    } catch {
      return false;
    }
    const call = { call_id: `form-${Date.now().toString(36)}`, name: "request_callback" };
    const answer = (await runTool(
      { ...call, arguments: { ...fields } },
      {
        api: this.api,
        signer,
        pages: () => Promise.resolve([]),
        navigate: () => undefined,
        turns: () => session?.turns ?? [],
      },
    )) as { requested?: boolean };
    if (session === undefined) {
      // The form's own session ends with its request.
      const metadata = { session_id: signer.session_id, function_calls: 0, mode: "callback" };
      this.api
        .signed(signer, "analytics/event", { type: "session_end", metadata })
        .catch(() => undefined);
    }
    return answer.requested === true;
  }
}
