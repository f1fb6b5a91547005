/**
 * What the crawl keeps of an HTML page's text: its main content (page-content.ts) cut into
 * passages (passages.ts), and a hash of those passages, so that a page whose markup changed but
 * whose text did not is known as unchanged, and is not indexed again.
 */
import crypto from "node:crypto";
import type { PageTextContent } from "../crawler/crawl-types.ts";
import type { Passage } from "./knowledge-types.ts";
import { extractContent } from "./page-content.ts";
import { toPassages } from "./passages.ts";

/** The page at `url` (its final URL) whose HTML is `html`: its content and its hash. */
export function pageText(
  html: string,
  url: string,
): { contentHash: string; content: PageTextContent } {
  const content = extractContent(html, url);
  const passages = toPassages(content);
  return {
    contentHash: passagesHash(passages),
    content: { language: content.language, sectionCount: content.sections.length, passages },
  };
}

/** SHA-256 (hex) of the passages' canonical JSON: each passage's fields in one fixed order. */
export function passagesHash(passages: readonly Passage[]): string {
  const canonical = JSON.stringify(
    passages.map((p) => [p.id, p.url, p.title, p.heading, p.sectionId, p.text]),
  );
  return crypto.createHash("sha256").update(canonical).digest("hex");
}
