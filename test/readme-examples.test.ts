/**
 * Every `curl` example of the documentation runs as written, in order (the README, then the pages
 * of docs/ in the order of helpers/docs.ts, the README's "Documentation" list, so that a page's
 * blocks can build on the pages before it), against a fresh `npm start`: the
 * real `sitevoice serve` on port 8787 (the port the examples name) with a new data folder and the
 * repository's `sites/`, the shell blocks run by bash from the repository's folder with `KEY` set
 * to the first key the service printed. Each call must answer in the envelope with a 2xx status,
 * or with the status its line announces (`# → 503`, or one of several: `# → 503 or 200`, for a
 * call whose answer depends on what the service got to first, such as a crawl). A call announced
 * with a page or a script (`# → 200 html`, `# → 200 javascript`) answers that, not the envelope;
 * one announced as a stream (`# → 200 stream`, ended by `--max-time`) answers Server-Sent Events.
 * A body a page shows for a call (`# → {"success":true,…}` on the line under it, or after
 * the status on its own line) must be what the call answered (see helpers/shown-output.ts for
 * how `…` and the masking of ids and times read). A call that is an `until` loop's condition,
 * which waits for something (the first crawl), is checked by its last answer, the one the loop
 * waited for. The service gets nothing a fresh `npm start` does not: no OAuth client, no
 * OPENAI_API_KEY.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { launchChromium, requireChromium } from "./helpers/browser.ts";
import { run, serving, stop, type Run } from "./helpers/cli-process.ts";
import { docPages, repo } from "./helpers/docs.ts";
import { answeringRuns, readmeExamples, type Call } from "./helpers/readme-blocks.ts";
import { differenceFrom, parseShown } from "./helpers/shown-output.ts";

const PORT = 8787;

/**
 * Wraps `curl` for the block: the call runs as written (plus `-w` for the status), its body is
 * printed as usual and kept, one file per run, beside its status and its arguments (which tell a
 * loop's runs of one call apart from the next call).
 */
const RECORDER = [
  "curl() {",
  "  local out n",
  // 28 is curl's --max-time ending a stream example; it still reports the status and body.
  '  out=$(command curl -sS -w "\\n%{http_code}" "$@") || { local rc=$?; [ $rc -eq 28 ] || { echo "curl failed ($rc): $*" >&2; return 1; }; }',
  '  n=$(wc -l < "$RECORD/statuses")',
  "  printf '%s\\n' \"${out%$'\\n'*}\" > \"$RECORD/body-$n\"",
  '  printf \'%s\' "$*" > "$RECORD/args-$n"',
  "  printf '%s\\n' \"${out##*$'\\n'}\" >> \"$RECORD/statuses\"",
  "  printf '%s\\n' \"${out%$'\\n'*}\"",
  "}",
  "set -e",
].join("\n");

function bash(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-c", `${RECORDER}\n${script}`],
      { cwd: repo, env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), output: stdout + stderr }),
    );
  });
}

/** Every example of the documentation, in reading order, with the page it is on. */
const examples = () =>
  docPages().flatMap(({ page, text }) =>
    readmeExamples(text).map((example) => ({ ...example, page })),
  );

/**
 * Checks one call's status and envelope (failing at once: the rest of the block is moot) and
 * answers how its body differs from the output the page shows, if it does.
 */
function checkCall(call: Call, status: number, body: string, where: string): string | undefined {
  if (call.raw !== undefined) {
    expect(call.expected, where).to.include(status);
    if (call.raw === "stream") expect(body, where).to.match(/^retry: ?2000$/m);
    // A document as it is: JSON, and not the envelope.
    if (call.raw === "json") expect(JSON.parse(body), where).to.not.have.property("success");
    return undefined;
  }
  const answer = JSON.parse(body) as { success: boolean; meta?: { request_id?: string } };
  if (call.expected === undefined) expect(status, where).to.be.within(200, 299);
  else expect(call.expected, where).to.include(status);
  expect(answer.success, where).to.equal(status >= 200 && status <= 299);
  expect(answer.meta?.request_id, where).to.match(/^req_/);
  if (call.shown === undefined) return undefined;
  return differenceFrom(parseShown(call.shown).shown, answer);
}

const portFree = () =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(PORT, "0.0.0.0", () => server.close(() => resolve(true)));
  });

describe("the documentation's curl examples", function () {
  this.timeout(120_000);
  let cwd: string;
  let service: Run | undefined;

  before(async function () {
    if (!(await portFree())) {
      throw new Error(
        `port ${PORT} is taken: the documentation's examples need it for a fresh npm start`,
      );
    }
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-readme-"));
    service = run(["serve"], cwd, {
      PORT: String(PORT),
      SITEVOICE_SITES_DIR: path.join(repo, "sites"),
    });
    await serving(service);
  });
  after(async () => {
    if (service !== undefined) await stop(service);
    if (cwd !== undefined) fs.rmSync(cwd, { recursive: true, force: true });
  });

  it("finds at least five examples, calling /v1/sites, /query, /config, /token, /versions, /v1/leads and /v1/webhooks", () => {
    const all = examples()
      .map((e) => e.script)
      .join("\n");
    expect(examples().length).to.be.at.least(5);
    const paths = [
      "/v1/sites",
      "/query",
      "/config",
      "/token",
      "/versions",
      "/v1/leads",
      "/v1/webhooks",
    ];
    expect(
      paths.filter((path_) => !all.includes(path_)),
      "paths no example calls",
    ).to.deep.equal([]);
  });

  // One scenario on purpose: the documentation's blocks build on each other (a site made in one
  // is searched in the next), so they run in order, in one test. It reads on after a shown output
  // differs, and reports every difference at once.

  it("runs every example in order: each call answers with the status its page says and the output it shows", async () => {
    const key = /(vk_test_[A-Za-z0-9_-]{32})/.exec(service!.output())?.[1];
    expect(key, service!.output()).to.be.a("string");
    const differences: string[] = [];
    for (const example of examples()) {
      const record = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-readme-calls-"));
      try {
        fs.writeFileSync(path.join(record, "statuses"), "");
        const result = await bash(example.script, { KEY: key!, RECORD: record });
        const where = `${example.page} line ${example.line}:\n${example.script}\n${result.output}`;
        expect(result.code, where).to.equal(0);
        const statuses = fs
          .readFileSync(path.join(record, "statuses"), "utf8")
          .trim()
          .split("\n")
          .map(Number);
        const runs = answeringRuns(
          example.calls,
          statuses.map((_, n) => fs.readFileSync(path.join(record, `args-${n}`), "utf8")),
        );
        expect(runs, `${statuses.length} runs of curl: ${where}`).to.have.length(
          example.calls.length,
        );
        example.calls.forEach((call, i) => {
          const run = runs![i] as number;
          const body = fs.readFileSync(path.join(record, `body-${run}`), "utf8");
          const difference = checkCall(
            call,
            statuses[run] as number,
            body,
            `call ${i + 1} of ${where}`,
          );
          if (difference !== undefined)
            differences.push(`${example.page} line ${example.line}, call ${i + 1}: ${difference}`);
        });
      } finally {
        fs.rmSync(record, { recursive: true, force: true });
      }
    }
    expect(differences, "shown outputs the service did not answer").to.deep.equal([]);
  });
  it("shows the widget on the quick start's demo page, and a press reaches the token endpoint", async function () {
    requireChromium(this);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`http://localhost:${PORT}/demo/luigis-trattoria`);
      const launcher = page.locator("sitevoice-widget button.launcher");
      const color = await launcher.evaluate((b) => getComputedStyle(b).backgroundColor);
      expect(color).to.equal("rgb(185, 28, 28)"); // the restaurant's appearance.color
      const token = page.waitForResponse((r) => r.url().endsWith("/v1/luigis-trattoria/token"));
      await launcher.click();
      await page.locator("sitevoice-widget .notice button.primary").click();
      // No OPENAI_API_KEY in a fresh start: the visitor is told, the service said why.
      expect((await token).status()).to.equal(503);
      await page.locator("sitevoice-widget .status").filter({ hasText: "not available" }).waitFor();
    } finally {
      await browser.close();
    }
  });
});
