/**
 * The words of a site's knowledge: how a passage's and a question's text become the index's
 * terms, the same on both sides, for the site's language.
 */
import { expect } from "chai";
import { languageTerms, STEMMED_LANGUAGES } from "./language-terms.ts";

const terms = (language: string | undefined, text: string) => languageTerms(language).terms(text);

describe("language terms", () => {
  it("lower-cases and splits at anything but letters and digits", () => {
    expect(terms(undefined, "Call US: (555) 010-2030")).to.deep.equal([
      "call",
      "us",
      "555",
      "010",
      "2030",
    ]);
  });

  it("keeps letters and digits written together as one term (24h)", () => {
    expect(terms(undefined, "Support 24h, 7 days")).to.deep.equal(["support", "24h", "7", "days"]);
  });

  it("splits a clock time at its colon", () => {
    expect(terms(undefined, "from 8:30")).to.deep.equal(["from", "8", "30"]);
  });

  it("drops single letters but keeps single digits", () => {
    expect(terms(undefined, "l'hôtel x 5")).to.deep.equal(["hotel", "5"]);
  });

  it("stems English: opening and opens are one term", () => {
    expect(terms("en", "opening")).to.deep.equal(terms("en", "opens"));
  });

  it("stems German: Lieferungen and Lieferung are one term", () => {
    expect(terms("de", "Lieferungen")).to.deep.equal(terms("de", "Lieferung"));
  });

  it("stems French: livraisons and livraison are one term", () => {
    expect(terms("fr", "livraisons")).to.deep.equal(terms("fr", "livraison"));
  });

  it("stems Spanish: envíos and envío are one term", () => {
    expect(terms("es", "envíos")).to.deep.equal(terms("es", "envío"));
  });

  it("stems Italian: consegne and consegna are one term", () => {
    expect(terms("it", "consegne")).to.deep.equal(terms("it", "consegna"));
  });

  it("stems Dutch: openingstijden and openingstijd are one term", () => {
    expect(terms("nl", "openingstijden")).to.deep.equal(terms("nl", "openingstijd"));
  });

  it("stems Portuguese: entregas and entrega are one term", () => {
    expect(terms("pt", "entregas")).to.deep.equal(terms("pt", "entrega"));
  });

  it("stems by the primary subtag, whatever its case (de-CH)", () => {
    expect(terms("de-CH", "Lieferungen")).to.deep.equal(terms("de", "Lieferungen"));
    expect(terms("EN_us", "opening")).to.deep.equal(["open"]);
  });

  it("does not stem a language it has no stemmer for", () => {
    expect(terms("xx", "openings")).to.deep.equal(["openings"]);
  });

  it("does not stem without a language", () => {
    expect(terms(undefined, "openings")).to.deep.equal(["openings"]);
  });

  it("names the languages it stems, at least en, de, fr, es, it, nl and pt", () => {
    expect(STEMMED_LANGUAGES).to.include.members(["en", "de", "fr", "es", "it", "nl", "pt"]);
  });

  it("does not stem a term with digits in it", () => {
    expect(terms("en", "24hours")).to.deep.equal(["24hours"]);
  });

  it("folds diacritics after stemming: café and cafe are one term", () => {
    expect(terms("fr", "café")).to.deep.equal(terms("fr", "cafe"));
  });

  it("folds diacritics where no stemmer runs", () => {
    expect(terms(undefined, "Crème brûlée")).to.deep.equal(["creme", "brulee"]);
  });

  it("folds ß to ss: Straße and Strasse are one term", () => {
    expect(terms("de", "Straße")).to.deep.equal(terms("de", "Strasse"));
  });

  it("folds umlauts to their base letter: Öffnungszeiten and Offnungszeiten are one term", () => {
    expect(terms("de", "Öffnungszeiten")).to.deep.equal(terms("de", "Offnungszeiten"));
  });

  it("does not read oe as ö: oeffnungszeiten stays another term (fuzzy search finds it)", () => {
    expect(terms("de", "oeffnungszeiten")).to.not.deep.equal(terms("de", "Öffnungszeiten"));
  });

  it("folds a letter written decomposed like its composed form", () => {
    expect(terms(undefined, "cafe\u0301")).to.deep.equal(terms(undefined, "caf\u00e9"));
  });

  it("drops English stop words", () => {
    expect(terms("en", "Are you open on the Sundays?")).to.deep.equal(["open", "sundai"]);
  });

  it("drops German stop words", () => {
    expect(terms("de", "Haben Sie am Sonntag geöffnet?")).to.deep.equal(
      terms("de", "Sonntag geöffnet"),
    );
  });

  it("drops French stop words, elided ones too", () => {
    expect(terms("fr", "Est-ce que vous êtes ouverts le dimanche ? L'hôtel")).to.deep.equal(
      terms("fr", "ouverts dimanche hôtel"),
    );
  });

  it("drops Spanish stop words", () => {
    expect(terms("es", "¿Cuánto tarda el envío a mi casa?")).to.deep.equal(
      terms("es", "tarda envío casa"),
    );
  });

  it("drops Italian stop words", () => {
    expect(terms("it", "Quanto costa la consegna per il mio ordine?")).to.deep.equal(
      terms("it", "costa consegna ordine"),
    );
  });

  it("drops Dutch stop words", () => {
    expect(terms("nl", "Zijn jullie op zondag open?")).to.deep.equal(terms("nl", "zondag open"));
  });

  it("drops Portuguese stop words", () => {
    expect(terms("pt", "Vocês fazem entregas no domingo?")).to.deep.equal(
      terms("pt", "fazem entregas domingo"),
    );
  });

  it("drops a stop word written without its accent", () => {
    expect(terms("fr", "ou est la gare")).to.deep.equal(terms("fr", "où est la gare"));
  });

  it("keeps another language's stop words: door is a word in English", () => {
    expect(terms("en", "the door")).to.deep.equal(["door"]);
  });

  it("drops no stop words without a language", () => {
    expect(terms(undefined, "the door")).to.deep.equal(["the", "door"]);
  });

  it("answers nothing for a question of stop words only", () => {
    expect(terms("en", "What is it that you do?")).to.deep.equal([]);
  });

  it("processes one term the way it processes a text's terms", () => {
    const english = languageTerms("en");
    expect(english.processTerm("Openings")).to.equal("open");
    expect(english.processTerm("the")).to.equal(null);
  });

  it("tokenizes without processing", () => {
    expect(languageTerms("en").tokenize("The Openings, 24h")).to.deep.equal([
      "The",
      "Openings",
      "24h",
    ]);
  });

  it("names its language by the primary subtag, and whether it stems it", () => {
    expect(languageTerms("de-AT")).to.include({ language: "de", stems: true });
    expect(languageTerms("xx")).to.include({ language: "xx", stems: false });
  });

  it("has no language for a tag that is not one", () => {
    expect(languageTerms("12-ab")).to.include({ language: undefined, stems: false });
    expect(languageTerms(undefined)).to.include({ language: undefined, stems: false });
  });
});
