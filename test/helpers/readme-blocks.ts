/**
 * The shell blocks of a documentation page (README.md or a page of docs/) that call the service:
 * each curl command with the status its line announces and the output the page shows for it (see
 * shown-output.ts for how that is read), and which of a block's runs of curl answers each.
 */

/** One curl command of a page's block: what its line announces, and the output shown for it. */
export interface Call {
  /** The statuses it may answer, or undefined for any 2xx. */
  expected: number[] | undefined;
  /**
   * Whether it answers a page, a script, a stream or a JSON document (`# → 200 html`, `# → 200
   * json`: the OpenAPI document), not the envelope.
   */
  raw: "html" | "javascript" | "stream" | "json" | undefined;
  /** The body the page shows for it (`# → {…}` after it, or after its status), as written. */
  shown: string | undefined;
  /**
   * Whether it is an `until` loop's condition (`until curl … | grep -q …; do sleep 1; done`),
   * which the block runs until it answers what the loop waits for.
   */
  repeated: boolean;
}

/** One shell block of a page that calls the service, with what each call must answer. */
export interface Example {
  /** The page's line the block starts at, for messages. */
  line: number;
  script: string;
  calls: Call[];
}

/** What an announcement (`# → 401`, `# → 200 html`, `# → {"success":true,…}`) says. */
function announced(text: string): Call {
  const match = /^(\d{3}(?:\s+or\s+\d{3})*)?\s*(?:(html|javascript|stream|json)\b)?\s*(.*)$/.exec(
    text.trim(),
  );
  const rest = match?.[3] ?? "";
  return {
    expected: match?.[1]?.split(/\s+or\s+/).map(Number),
    raw: match?.[2] as Call["raw"],
    shown: /^[[{]/.test(rest) ? rest : undefined,
    repeated: false,
  };
}

/** A page's ```sh blocks that hold a curl command, as written. */
export function readmeExamples(text: string): Example[] {
  const examples: Example[] = [];
  for (const match of text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    const script = match[1] as string;
    const calls: Call[] = [];
    // A command continued over several lines with `\` is one command.
    for (const line of script.replace(/\\\n/g, " ").split("\n")) {
      const comment = /#\s*→\s*(.*)$/.exec(line)?.[1];
      const command = /^\s*(until\s+)?curl\s/.exec(line);
      if (command !== null) {
        calls.push({
          ...(comment === undefined
            ? { expected: undefined, raw: undefined, shown: undefined }
            : announced(comment)),
          repeated: command[1] !== undefined,
        });
      } else if (comment !== undefined && /^\s*#/.test(line) && calls.length > 0) {
        // A comment line of its own shows the output of the call before it.
        (calls[calls.length - 1] as Call).shown = announced(comment).shown;
      }
    }
    if (calls.length === 0) continue;
    examples.push({ line: text.slice(0, match.index).split("\n").length, script, calls });
  }
  return examples;
}

/**
 * Which run answers each call, from the arguments of the block's runs of curl in order: a call's
 * own run, or for a repeated call the last of its runs in a row (the answer the loop waited for).
 * Undefined when the runs are not the calls' (one did not run, or more ran).
 */
export function answeringRuns(calls: Call[], runs: string[]): number[] | undefined {
  const answers: number[] = [];
  let next = 0;
  for (const call of calls) {
    if (next === runs.length) return undefined;
    let answer = next++;
    while (call.repeated && runs[next] === runs[answer]) answer = next++;
    answers.push(answer);
  }
  return next === runs.length ? answers : undefined;
}
