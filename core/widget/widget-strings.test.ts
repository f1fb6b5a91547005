/** The strings a site's config brings the widget: its language's, under its overrides. */
import { expect } from "chai";
import { ENGLISH, type StringKey, type Strings } from "../../widget/src/strings.ts";
import { widgetStrings } from "./widget-strings.ts";

const KEYS = Object.keys(ENGLISH) as StringKey[];
const TRANSLATED = ["ar", "de", "es", "fr", "it", "nl", "pl", "pt", "sv"];

/** Each key's placeholders (`{business}`, `{id}`, `{what}`), so a diff names the key that lost one. */
const placeholdersByKey = (strings: Partial<Strings>) =>
  Object.fromEntries(
    Object.entries(strings).map(([key, text]) => [key, text.match(/\{\w+\}/g) ?? []]),
  );

describe("widgetStrings", () => {
  it("gives a German site the German table", () => {
    const strings = widgetStrings("de", undefined);
    expect(strings.start).to.equal("Gespräch starten");
    expect(strings.not_now).to.equal("Nicht jetzt");
  });

  it("gives a regional tag its language's table (de-CH as de, pt-BR as pt)", () => {
    expect(widgetStrings("de-CH", undefined).start).to.equal("Gespräch starten");
    expect(widgetStrings("pt-BR", undefined).start).to.equal("Começar a falar");
  });

  it("gives an unknown language nothing, so the widget keeps English", () => {
    expect(widgetStrings("tlh", undefined)).to.deep.equal({});
  });

  it("gives English nothing: the bundle has it", () => {
    expect(widgetStrings("en-GB", undefined)).to.deep.equal({});
  });

  it("lets the site's overrides win over its language's strings", () => {
    const strings = widgetStrings("de", { start: "Los geht's" });
    expect(strings.start).to.equal("Los geht's");
    expect(strings.not_now).to.equal("Nicht jetzt");
  });

  it("lets an English site's overrides through", () => {
    expect(widgetStrings("en", { start: "Ask us" })).to.deep.equal({ start: "Ask us" });
  });

  describe("every translation", () => {
    for (const language of TRANSLATED) {
      it(`${language} is translated`, () => {
        expect(widgetStrings(language, undefined).start)
          .to.be.a("string")
          .and.not.equal(ENGLISH.start);
      });

      // A key it lacks would show in English among its language's words; a key the widget no
      // longer has is a mistake.
      it(`${language} has every key the widget has, and no other`, () => {
        expect(widgetStrings(language, undefined)).to.have.all.keys(KEYS);
      });

      it(`${language} keeps English's placeholders in every string`, () => {
        const strings = widgetStrings(language, undefined);
        const english = Object.fromEntries(
          KEYS.filter((key) => key in strings).map((key) => [key, ENGLISH[key]]),
        );
        expect(placeholdersByKey(strings)).to.deep.equal(placeholdersByKey(english));
      });
    }
  });
});
