/**
 * The README's shell blocks that call the service: each curl command with the status its line
 * announces and the output the README shows for it (see shown-output.ts for how that is read).
 */

/** One curl command of a README block: what its line announces, and the output shown for it. */
export interface Call {
  /** The statuses it may answer, or undefined for any 2xx. */
  expected: number[] | undefined;
  /** Whether it answers a page, a script or a stream (`# → 200 html`), not the envelope. */
  raw: "html" | "javascript" | "stream" | undefined;
  /** The body the README shows for it (`# → {…}` after it, or after its status), as written. */
  shown: string | undefined;
}

/** One shell block of the README that calls the service, with what each call must answer. */
export interface Example {
  /** The README line the block starts at, for messages. */
  line: number;
  script: string;
  calls: Call[];
}

/** What an announcement (`# → 401`, `# → 200 html`, `# → {"success":true,…}`) says. */
function announced(text: string): Call {
  const match = /^(\d{3}(?:\s+or\s+\d{3})*)?\s*(?:(html|javascript|stream)\b)?\s*(.*)$/.exec(
    text.trim(),
  );
  const rest = match?.[3] ?? "";
  return {
    expected: match?.[1]?.split(/\s+or\s+/).map(Number),
    raw: match?.[2] as Call["raw"],
    shown: /^[[{]/.test(rest) ? rest : undefined,
  };
}

/** The README's ```sh blocks that hold a curl command, as written. */
export function readmeExamples(text: string): Example[] {
  const examples: Example[] = [];
  for (const match of text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    const script = match[1] as string;
    const calls: Call[] = [];
    // A command continued over several lines with `\` is one command.
    for (const line of script.replace(/\\\n/g, " ").split("\n")) {
      const comment = /#\s*→\s*(.*)$/.exec(line)?.[1];
      if (/^\s*curl\s/.test(line)) {
        calls.push(
          comment === undefined
            ? { expected: undefined, raw: undefined, shown: undefined }
            : announced(comment),
        );
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
