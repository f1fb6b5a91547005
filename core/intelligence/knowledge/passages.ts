/**
 * A page's sections as the passages the index holds: one per section, a long section cut in
 * parts of at most MAX_PASSAGE_CHARS, each part with the section's heading path and id, so that
 * a search's answer says where on the page it comes from and stays short enough to speak.
 */
import { MAX_PASSAGE_CHARS, type PageContent, type Passage } from "./knowledge-types.ts";

/**
 * How far back from the limit a cut may fall: a line or sentence end in the passage's second
 * half; before that, the passage would be cut short for a boundary far away.
 */
const NEAR = MAX_PASSAGE_CHARS / 2;

/** The passages of `content`, in its order, numbered from 0 (`<url>#<n>`). */
export function toPassages(content: PageContent): Passage[] {
  const title = content.title ?? pathOf(content.url);
  const passages: Passage[] = [];
  for (const section of content.sections) {
    const heading = section.headings.join(" > ");
    for (const text of cut(section.text)) {
      passages.push({
        id: `${content.url}#${passages.length}`,
        url: content.url,
        title,
        heading,
        sectionId: section.sectionId,
        text,
      });
    }
  }
  return passages;
}

const pathOf = (url: string): string => {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
};

/**
 * `text` in parts of at most MAX_PASSAGE_CHARS: cut at the last line end near the limit, else the
 * last sentence end, else the last space, else at the limit itself (outside a surrogate pair).
 */
function cut(text: string): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > MAX_PASSAGE_CHARS) {
    // One character past the limit: a boundary right after a full-length part counts.
    const window = rest.slice(0, MAX_PASSAGE_CHARS + 1);
    const at = cutAt(window);
    parts.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest !== "") parts.push(rest);
  return parts;
}

/** Where to end the part that `window` (the limit and one character) begins. */
function cutAt(window: string): number {
  const lineEnd = window.lastIndexOf("\n");
  if (lineEnd >= NEAR) return lineEnd;
  let sentenceEnd = -1;
  for (const match of window.matchAll(/[.!?…]["'”’)\]]*(?=\s)/g)) {
    sentenceEnd = match.index + match[0].length;
  }
  if (sentenceEnd >= NEAR) return sentenceEnd;
  const space = window.lastIndexOf(" ");
  if (space >= NEAR) return space;
  const high = window.charCodeAt(MAX_PASSAGE_CHARS - 1);
  return high >= 0xd800 && high <= 0xdbff ? MAX_PASSAGE_CHARS - 1 : MAX_PASSAGE_CHARS;
}
