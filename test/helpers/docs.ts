/**
 * The documentation as the tests read it: README.md, then the pages of docs/ in the order the
 * README's "Documentation" section lists them. The order matters to the README test: a page's
 * curl examples build on the pages before it (a site made in one is searched in the next).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repo = fileURLToPath(new URL("../..", import.meta.url));

/** Every page of the documentation, by path from the repository's folder, in reading order. */
export const DOC_PAGES = [
  "README.md",
  "docs/configuration.md",
  "docs/cli.md",
  "docs/site-files.md",
  "docs/widget.md",
  "docs/api/overview.md",
  "docs/api/accounts.md",
  "docs/api/sites.md",
  "docs/api/crawls-and-knowledge.md",
  "docs/api/site-data.md",
  "docs/api/widget.md",
  "docs/analytics.md",
  "docs/webhooks.md",
  "docs/visitor-data.md",
  "docs/api/errors.md",
  "docs/adapters-and-plugins.md",
  "docs/plugin-kit.md",
  "docs/production.md",
] as const;

/** One page's text. */
export function docPage(page: string): string {
  return fs.readFileSync(path.join(repo, page), "utf8");
}

/** Every page with its text, in reading order. */
export function docPages(): { page: string; text: string }[] {
  return DOC_PAGES.map((page) => ({ page, text: docPage(page) }));
}

/** The Markdown files under docs/, by path from the repository's folder, sorted. */
export function markdownUnderDocs(): string[] {
  return (fs.readdirSync(path.join(repo, "docs"), { recursive: true }) as string[])
    .filter((file) => file.endsWith(".md"))
    .map((file) => path.posix.join("docs", file.split(path.sep).join("/")))
    .sort();
}

/** The text with its fenced code blocks blanked (their lines kept, so line numbers hold). */
export function withoutCodeBlocks(text: string): string {
  return text.replace(/^```[\s\S]*?^```$/gm, (block) => block.replace(/[^\n]/g, ""));
}

/**
 * A heading's anchor as GitHub makes it: lower case, punctuation other than `-` and `_` dropped
 * (backticks too), each space a hyphen.
 */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a page's headings; a repeated one gets `-1`, `-2`… as on GitHub. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of withoutCodeBlocks(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = headingSlug(match[1] as string);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
