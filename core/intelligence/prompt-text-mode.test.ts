/**
 * What the personality prompt says of a text session: one line in its Language section, that the
 * visitor types and reads; nothing of it in a voice session.
 */
import { expect } from "chai";
import { buildPersonalityPrompt } from "./prompt.ts";
import { NOW, minimalSite, section } from "./prompt-fixtures.ts";

const TYPED_LINE = "The visitor is typing: your answers are read, not heard.";

/** The prompt's Language section. */
const language = (textMode?: boolean) =>
  section(buildPersonalityPrompt(minimalSite(), { now: NOW, textMode }), "Language");

describe("personality prompt: a text session", () => {
  it("says in the Language section that the visitor types and reads", () => {
    expect(language(true)).to.include(TYPED_LINE);
  });

  it("says nothing of typing in a voice session", () => {
    expect(buildPersonalityPrompt(minimalSite(), { now: NOW })).to.not.include("typing");
  });

  it("adds that one line and nothing else", () => {
    const voice = buildPersonalityPrompt(minimalSite(), { now: NOW });
    const text = buildPersonalityPrompt(minimalSite(), { now: NOW, textMode: true });
    expect(text.replace(`${TYPED_LINE}\n`, "")).to.equal(voice);
  });
});
