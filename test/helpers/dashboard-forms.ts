/**
 * Reading the dashboard's HTML in tests: its escapes undone, a form's values as the page fills
 * them, and what `sitevoice validate` says of a line, which the site forms must say too.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SiteRules } from "../../core/sites/site-rules.ts";
import { validateCommand } from "../../core/sites/yaml/validate-command.ts";

/** HTML's escapes undone, enough to compare the text a page shows. */
export function decode(html: string): string {
  return html
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&#x3D;/g, "=")
    .replace(/&#x60;/g, "`")
    .replace(/&amp;/g, "&");
}

/** The named form's fields as the page fills them (inputs, textareas, selected options). */
export function formValues(html: string, sectionId: string): Record<string, string> {
  const section = html.slice(html.indexOf(`id="${sectionId}"`));
  const form = section.slice(0, section.indexOf("</form>"));
  const values: Record<string, string> = {};
  for (const m of form.matchAll(
    /<input id="[^"]+" name="([^"]+)" type="text"(?: inputmode="numeric")? value="([^"]*)"/g,
  )) {
    values[m[1]!] = decode(m[2]!);
  }
  for (const m of form.matchAll(
    /<textarea id="[^"]+" name="([^"]+)"[^>]*>([\s\S]*?)<\/textarea>/g,
  )) {
    values[m[1]!] = decode(m[2]!);
  }
  for (const m of form.matchAll(/<select id="[^"]+" name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const selected = /<option value="([^"]*)" selected>/.exec(m[2]!);
    if (selected) values[m[1]!] = decode(selected[1]!);
  }
  return values;
}

/** What `sitevoice validate` prints for a file of `text` named `name`. */
export async function validateLines(
  rules: SiteRules,
  text: string,
  name: string,
): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sv-validate-"));
  fs.writeFileSync(path.join(dir, name), text);
  const lines: string[] = [];
  await validateCommand([name], { cwd: dir, out: (line) => lines.push(line), rules });
  fs.rmSync(dir, { recursive: true });
  return lines.slice(0, -1); // the summary line is validate's, not a problem
}

/** The message `sitevoice validate` gives a minimal site with one bad line. */
export async function validateMessage(rules: SiteRules, line: string): Promise<string> {
  const [printed] = await validateLines(
    rules,
    `business_name: X\nbusiness_description: ""\ndomain: x.example\n${line}\n`,
    "x.yaml",
  );
  return printed!.split("  ").slice(2).join("  ");
}
